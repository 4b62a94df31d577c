import { describeFault, findPreset } from '../../sim';
import { deriveRun } from '../store/derive';
import { faultTimeMs } from '../faults/faultCatalog';
import { editSteps } from './stepEdits';

const unsafe = findPreset('unsafe-release')!.withoutFix; // A: acquire, work, release; pause A before step 3 (release)
const run = deriveRun(unsafe);
const fired = (i: number) => faultTimeMs(unsafe.faults[i]!, i, run);
const words = (i: number) => `Fault ${i + 1} (${describeFault(unsafe.faults[i]!, unsafe)})`;

describe('editing steps keeps faults on their own step', () => {
  it('the fault card describes the current job: before step 3 (release)', () => {
    expect(describeFault(unsafe.faults[0]!, unsafe)).toBe('Pause A for 5 s before step 3 (release)');
    // A step that no longer exists is said plainly, never "?" and never another step's name.
    const shorter = { ...unsafe, workers: unsafe.workers.map((w) => (w.id === 'A' ? { ...w, steps: w.steps.slice(0, 2) } : w)) };
    expect(describeFault(unsafe.faults[0]!, shorter)).toBe('Pause A for 5 s before step 3 (no such step: A has 2 steps)');
  });

  it('moving its step up takes the fault with it', () => {
    const r = editSteps(unsafe, 0, { kind: 'move', index: 2, delta: -1 }, fired, words);
    const v = r.value as typeof unsafe;
    expect(v.workers[0]!.steps.map((s) => s.do)).toEqual(['acquire', 'release', 'work']);
    expect(v.faults[0]).toMatchObject({ step: 1, phase: 'before' });
    expect(describeFault(v.faults[0]!, v)).toBe('Pause A for 5 s before step 2 (release)');
    expect(r.notices).toEqual([]);
  });

  it('removing an earlier step shifts the fault; another worker\'s faults stay', () => {
    const r = editSteps(unsafe, 0, { kind: 'remove', index: 1 }, fired, words);
    const v = r.value as typeof unsafe;
    expect(describeFault(v.faults[0]!, v)).toBe('Pause A for 5 s before step 2 (release)');
    const other = editSteps(unsafe, 1, { kind: 'remove', index: 2 }, fired, words).value as typeof unsafe;
    expect(other.faults).toEqual(unsafe.faults);
  });

  it('removing the fault\'s own step places it at the time it fired, with a notice', () => {
    const at = fired(0)!;
    const r = editSteps(unsafe, 0, { kind: 'remove', index: 2 }, fired, words);
    const v = r.value as typeof unsafe;
    expect(v.faults[0]).toEqual({ kind: 'pause', worker: 'A', pauseMs: 5_000, atMs: at });
    expect(r.notices).toEqual([{ path: 'faults[0]', message: expect.stringMatching(/^Fault 1 \(Pause A for 5 s before step 3 \(release\)\): that step was removed, so the fault now fires at the time it fired before \(\d+(\.\d+)? s\)\.$/) }]);
  });

  it('a fault that never fired goes with its step, and the notice says so', () => {
    const r = editSteps(unsafe, 0, { kind: 'remove', index: 2 }, () => null, words);
    expect((r.value as typeof unsafe).faults).toEqual([]);
    expect(r.notices[0]!.message).toMatch(/never fired, so it was removed too/);
  });
});
