/**
 * Checkers read data, never rendered text, and need no World: run over a stored trace whose
 * texts are blanked, they give the run's own verdict. The texts are also out of their reach by
 * type (`CheckedEvent`), and this folder's source reads no text field.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { PRESETS } from '../presets';
import { runScenario } from '../engine/run';
import { generateFault } from '../faults/registry';
import { Rng } from '../engine/rng';
import { validateScenario } from '../scenario/validate';
import type { CheckedEvent, TraceEvent } from '../engine/trace';
import type { Fault, Invariant, Scenario } from '../scenario/schema';
import { checkersFor, checkTrace } from './index';

const ALL_INVARIANTS: Invariant[] = [
  { kind: 'uniqueBusinessKey' }, { kind: 'noOverlappingWrites' }, { kind: 'noStaleTokenAccepted' }, { kind: 'effectOnce', harmless: false },
  { kind: 'noLostUpdate' }, { kind: 'noOversell' }, { kind: 'mutualExclusion' }, { kind: 'singleLeaseOwner' }, { kind: 'boundedWait', maxWaitMs: 1_000 },
];

/** The trace as a store would keep it, minus every rendered text. */
function dataOnly(events: readonly TraceEvent[]): CheckedEvent[] {
  return (JSON.parse(JSON.stringify(events)) as TraceEvent[]).map(({ command: _c, reply: _r, narration: _n, ...data }) => data);
}

describe('invariant checkers read data only', () => {
  it('over every preset\'s stored trace, without texts and without a World, they give the run\'s verdict', () => {
    for (const p of PRESETS) {
      for (const s of [p.withoutFix, p.withFix]) {
        for (const scenario of [s, { ...s, invariants: ALL_INVARIANTS }]) {
          const r = runScenario(scenario);
          expect(checkTrace(scenario, dataOnly(r.events), r.checkedToMs)).toEqual([...r.verdict.violations, ...r.verdict.notes].sort(byCheckerOrder(scenario)));
        }
      }
    }
  });

  it('so do they over random scenarios with faults', () => {
    fc.assert(
      fc.property(fc.constantFrom(...PRESETS), fc.integer({ min: 0, max: 2 ** 31 - 1 }), (p, seed) => {
        const rng = new Rng(seed);
        const faults = [generateFault(rng, p.withoutFix), generateFault(rng, p.withoutFix)] as Fault[];
        const v = validateScenario({ ...p.withoutFix, seed, faults, invariants: ALL_INVARIANTS });
        if (!v.ok) return true;
        const r = runScenario(v.scenario);
        expect(checkTrace(v.scenario, dataOnly(r.events), r.checkedToMs)).toEqual([...r.verdict.violations, ...r.verdict.notes].sort(byCheckerOrder(v.scenario)));
        return true;
      }),
      { numRuns: 60 },
    );
  });

  it('the checkers\' source reads no rendered text field of an event', () => {
    const dir = __dirname;
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))) {
      const text = readFileSync(join(dir, file), 'utf8');
      // `call.command` / `call.reply` (or `redisCall.reply` & co., from `redisCallOf`) are the structured command and reply; anything else named command/reply/narration is text.
      expect({ file, reads: text.match(/(?<![cC]all\??)\.(command|reply|narration)\b/g) ?? [] }).toEqual({ file, reads: [] });
      expect({ file, importsWorld: /import[^;]*\bWorld\b[^;]*from/.test(text) }).toEqual({ file, importsWorld: false });
    }
  });

  it('a checker\'s event type has no text fields', () => {
    const e: CheckedEvent = { id: 'e1', atMs: 0, actor: 'A', kind: 'sql' };
    // @ts-expect-error the rendered command is not part of what a checker sees
    void e.command;
    // @ts-expect-error nor the narration
    void e.narration;
    expect(Object.keys(e)).toEqual(['id', 'atMs', 'actor', 'kind']);
  });

  it('published findings are immutable; a revision replaces the finding it revises', () => {
    const s = PRESETS.find((p) => p.id === 'thumbnail')!.withoutFix;
    const heard: { message: string; revises: string | null }[] = [];
    const r = runScenario(s);
    const checkers = checkersFor(s, (f, old) => heard.push({ message: f.message, revises: old?.message ?? null }));
    for (const e of r.events) for (const c of checkers) c.onEvent(e);
    for (const c of checkers) c.finish(r.checkedToMs, r.events.at(-1));
    const findings = checkers.flatMap((c) => c.findings);
    expect(findings).toEqual([...r.verdict.violations, ...r.verdict.notes]);
    expect(findings.every((f) => Object.isFrozen(f) && Object.isFrozen(f.eventIds))).toBe(true);
    expect(heard.length).toBeGreaterThan(0);
    expect(heard.at(-1)!.message).toBe(findings.at(-1)!.message);
  });
});

/**
 * The verdict lists violations, then notes; checkTrace lists findings in checker order (the
 * declared invariants, then the note on duplicates no declared invariant checks).
 */
function byCheckerOrder(s: Scenario) {
  const order = s.invariants.map((i) => i.kind);
  const rank = (f: { invariant: string; severity?: string }) => {
    const i = order.indexOf(f.invariant as never);
    return i < 0 ? order.length : i;
  };
  return (a: { invariant: string }, b: { invariant: string }) => rank(a) - rank(b);
}
