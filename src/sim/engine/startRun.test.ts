/**
 * startRun: one run spread over pieces of world steps gives `runScenario`'s result byte for byte,
 * however the steps are split (the UI prefetches a long run this way, a slice per idle period).
 */
import { PRESETS } from '../presets';
import { runScenario, startRun, type RunResult } from './run';

const variants = PRESETS.flatMap((p) => [{ name: p.id, s: p.withoutFix }, { name: `${p.id} --fixed`, s: p.withFix }]);

/** Everything a result says, as one text (the trace hash is a getter: read it). */
const whole = (r: RunResult) => JSON.stringify({ ...r, traceHash: r.traceHash });

describe('startRun', () => {
  it.each([1, 3, 50])('advanced in pieces of %i world steps, every preset variant gives runScenario\'s result (snapshots included)', (piece) => {
    for (const { name, s } of variants) {
      const ref = runScenario(s, { captureSnapshots: true });
      const run = startRun(s, { captureSnapshots: true });
      let calls = 0;
      while (run.advance(piece)) calls += 1;
      expect({ name, done: run.done }).toEqual({ name, done: true });
      // More than one piece for any run with more steps than a piece: the run really was split.
      if (piece === 1) expect({ name, split: calls > 1 }).toEqual({ name, split: ref.events.length > 1 });
      expect(whole(run.result())).toBe(whole(ref));
    }
  });

  it('stopAtFirstViolation and the event limit end a stepped run where runScenario stops', () => {
    for (const { name, s } of variants) {
      for (const options of [{ stopAtFirstViolation: true }, { maxEvents: 12 }]) {
        const ref = runScenario(s, options);
        const run = startRun(s, options);
        while (run.advance(2));
        expect({ name, options, r: whole(run.result()) }).toEqual({ name, options, r: whole(ref) });
      }
    }
  });

  it('a run not over, or cancelled, has no result; a cancelled run does not advance', () => {
    const s = PRESETS.find((p) => p.id === 'export-lease-expiry')!.withoutFix;
    const run = startRun(s);
    expect(run.advance(1)).toBe(true);
    expect(run.done).toBe(false);
    expect(() => run.result()).toThrow(/not over/);
    run.cancel();
    expect(run.advance(Infinity)).toBe(false);
    expect(() => run.result()).toThrow(/cancelled/);
  });

  it('reading the result twice gives the same object; advancing a finished run does nothing', () => {
    const s = PRESETS[0]!.withoutFix;
    const run = startRun(s);
    expect(run.advance(Infinity)).toBe(false);
    const r = run.result();
    expect(run.advance(5)).toBe(false);
    expect(run.result()).toBe(r);
  });
});
