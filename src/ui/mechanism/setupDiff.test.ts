import { PRESETS, findPreset, runScenario, type Scenario } from '../../sim';
import { canonicalJson } from '../url/urlState';
import { applyChanges, carryFaults, setupChanges, stepDiffInWords } from './setupDiff';
import { steps } from '../../sim/presets/build';

const texts = (a: Scenario, b: Scenario) => setupChanges(a, b).map((c) => c.text);

describe('setupChanges: what the fixed variant changes, for every preset', () => {
  for (const p of PRESETS) {
    it(`${p.id}: the changes, applied to the variant without the fix, give the fixed variant and its verdict`, () => {
      const changes = setupChanges(p.withoutFix, p.withFix);
      expect(changes.length).toBeGreaterThan(0);
      const applied = applyChanges(p.withoutFix, changes);
      expect(canonicalJson(applied)).toBe(canonicalJson(p.withFix));
      const ran = runScenario(applied);
      const fixed = runScenario(p.withFix);
      expect(ran.verdict.status).toBe(fixed.verdict.status);
      expect(ran.traceHash).toBe(fixed.traceHash);
      // And back: undoing the fix gives the variant without it.
      expect(canonicalJson(applyChanges(p.withFix, setupChanges(p.withFix, p.withoutFix)))).toBe(canonicalJson(p.withoutFix));
      // Each change is a real one, worded, and named once.
      for (const c of changes) {
        expect(c.text.trim()).not.toBe('');
        expect(canonicalJson(c.apply(p.withoutFix))).not.toBe(canonicalJson(p.withoutFix));
      }
      expect(new Set(changes.map((c) => c.text)).size).toBe(changes.length);
      // A scenario against itself: nothing.
      expect(setupChanges(p.withFix, p.withFix)).toEqual([]);
    });
  }

  it('names the step changes of the fixes that change the job, not only the switch they flip', () => {
    expect(texts(findPreset('serializable-retry')!.withoutFix, findPreset('serializable-retry')!.withFix)).toEqual([
      'A, B: call POST /v1/charges (500 ms) moves after COMMIT',
      'Idempotency key (honoured by the destination): on (was off)',
    ]);
    expect(texts(findPreset('queue-redelivery')!.withoutFix, findPreset('queue-redelivery')!.withFix)).toEqual([
      'A, B: work 35 s becomes work 20 s → ChangeMessageVisibility (extend the visibility while working) → work 15 s',
    ]);
    expect(texts(findPreset('skip-locked-claim')!.withoutFix, findPreset('skip-locked-claim')!.withFix)).toEqual([
      'A, B: drops COMMIT (after claim the job row); drops BEGIN (after work 20 ms)',
    ]);
  });

  it('words a setting by its field, and a change of workers', () => {
    const base = findPreset('queue-redelivery')!.withoutFix;
    const longer: Scenario = { ...base, queue: { ...base.queue!, visibilityTimeoutMs: 60_000 } as Scenario['queue'] };
    expect(texts(base, longer)).toEqual(['Queue: visibility timeout 60 s (was 30 s)']);
    const one: Scenario = { ...base, workers: [base.workers[0]!] };
    expect(texts(base, one)).toEqual(['workers A (were A, B)']);
    const later: Scenario = { ...base, workers: [base.workers[0]!, { ...base.workers[1]!, startMs: 2_000 }] };
    expect(texts(base, later)).toEqual(['B starts at 2 s (was 1 s)']);
    expect(canonicalJson(applyChanges(base, setupChanges(base, later)))).toBe(canonicalJson(later));
  });
});

describe('stepDiffInWords', () => {
  const s = findPreset('serializable-retry')!.withoutFix;
  it('moves, adds, drops, becomes', () => {
    expect(stepDiffInWords(s, steps('begin', 'commit'), steps('begin', 'commit'))).toBeNull();
    expect(stepDiffInWords(s, steps('begin', 'check', 'commit'), steps('begin', 'commit', 'check'))).toBe('check the job record moves after COMMIT');
    expect(stepDiffInWords(s, steps('begin', 'commit'), steps('begin', 'record', 'commit'))).toBe('adds record the job as done after BEGIN');
    expect(stepDiffInWords(s, steps('begin', 'record', 'commit'), steps('begin', 'commit'))).toBe('drops record the job as done (after BEGIN)');
    expect(stepDiffInWords(s, steps(['work', 100]), steps(['work', 200]))).toBe('work 100 ms becomes work 200 ms');
    expect(stepDiffInWords(s, steps('commit'), steps('connect', 'commit'))).toBe('adds borrow a connection at the start');
  });
});

describe('carryFaults', () => {
  it('a fault placed at a step follows that step into steps numbered differently', () => {
    const p = findPreset('session-lock-pool')!;
    // Before `work`: step 2 of the leaky job, step 3 of the one with BEGIN first.
    expect(carryFaults(p.withoutFix, p.withFix)).toEqual(p.withFix.faults);
    expect(carryFaults(p.withFix, p.withoutFix)).toEqual(p.withoutFix.faults);
    // A fault at a time, or at a step of steps that did not change, stays as it is.
    const q = findPreset('crash-after-effect')!;
    expect(carryFaults(q.withoutFix, q.withFix)).toEqual(q.withoutFix.faults);
  });
});
