/** runScenario for machines: stop at the first violation, stream findings, skip the texts. */
import { PRESETS } from '../presets';
import { runScenario } from './run';
import type { Finding } from '../invariants';

const variants = PRESETS.flatMap((p) => [{ name: p.id, s: p.withoutFix }, { name: `${p.id} --fixed`, s: p.withFix }]);
const dataOf = (events: readonly object[]) => JSON.stringify(events.map((e) => {
  const { narration: _n, fact: _f, command: _c, reply: _r, ...data } = e as Record<string, unknown>;
  return data;
}));

describe('run options', () => {
  it('onFinding hears every finding as it is published; revisions replaced in order give the verdict', () => {
    for (const { s } of variants) {
      const live: Finding[] = [];
      const r = runScenario(s, {
        onFinding: (f, revises) => {
          if (revises) live[live.indexOf(revises)] = f;
          else live.push(f);
        },
      });
      const order = s.invariants.map((i) => i.kind as string);
      const byChecker = (a: Finding, b: Finding) => order.indexOf(a.invariant) - order.indexOf(b.invariant);
      expect([...live].sort(byChecker)).toEqual([...r.verdict.violations, ...r.verdict.notes].sort(byChecker));
    }
  });

  it('stopAtFirstViolation stops after the first violation: a prefix of the full run, with that violation', () => {
    let stoppedRuns = 0;
    for (const { name, s } of variants) {
      const full = runScenario(s);
      let first: Finding | null = null;
      runScenario(s, { onFinding: (f) => void (f.severity === 'violation' && (first ??= f)) });
      const r = runScenario(s, { stopAtFirstViolation: true });
      if (full.verdict.held) {
        expect({ name, stopped: r.stopped, events: r.events.length }).toEqual({ name, stopped: undefined, events: full.events.length });
        continue;
      }
      stoppedRuns += 1;
      expect({ name, stopped: r.stopped }).toEqual({ name, stopped: 'violation' });
      expect(r.events.length).toBeLessThanOrEqual(full.events.length);
      expect(JSON.stringify(r.events)).toBe(JSON.stringify(full.events.slice(0, r.events.length)));
      expect(r.verdict.violations[0]).toEqual(first);
      expect(r.verdict.held).toBe(false);
    }
    expect(stoppedRuns).toBeGreaterThanOrEqual(12);
  });

  it('a stopped run ends before the full run does when the violation comes early', () => {
    // remote-call-in-txn: C has waited past the limit at 3 s; the full run goes on to 6.1 s.
    const s = PRESETS.find((p) => p.id === 'remote-call-in-txn')!.withoutFix;
    const full = runScenario(s);
    const r = runScenario(s, { stopAtFirstViolation: true });
    expect([r.events.length, r.endMs]).toEqual([19, 3_000]);
    expect([full.events.length, full.endMs]).toEqual([38, 6_100]);
  });

  it('text: false gives the same verdict, metrics and event data, without narration, commands or replies', () => {
    for (const { name, s } of variants) {
      const full = runScenario(s);
      const bare = runScenario(s, { text: false });
      expect({ name, verdict: bare.verdict }).toEqual({ name, verdict: full.verdict });
      expect(bare.metrics).toEqual(full.metrics);
      expect(dataOf(bare.events)).toBe(dataOf(full.events));
      expect(bare.events.every((e) => e.narration === '' && e.fact === undefined && e.command === undefined && e.reply === undefined)).toBe(true);
    }
  });
});
