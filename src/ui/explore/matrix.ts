/**
 * The mechanism × fault-kind matrix of a scenario ("which mechanism do I need against which
 * fault"): rows are mechanisms — the preset's two variants, the running scenario when it is edited
 * beyond both, and the variant without the fix with one safeguard switch turned on (each that
 * applies to it), then all of them together — and columns the fault kinds that apply. Each cell is
 * one search of that row's scenario with that kind alone, up to N faults (`exploreMatrix`, the
 * cells one after the other over the same runners, each reported as it ends).
 */
import type { Preset, Scenario } from '../../sim';
import { applicableKinds, withoutFaults } from '../../sim/search/search';
import { SWITCHES } from '../mechanism/switches';
import { canonicalJson } from '../url/urlState';
import { exploreParallel, type ExploreOutcome, type RangeRunner } from './coordinator';

/** One row: a mechanism, named. */
export interface MatrixRow {
  readonly id: string;
  readonly label: string;
  readonly scenario: Scenario;
}

/** The safeguards a row may turn on: switch id and its safe value. */
export const SAFEGUARDS: readonly { readonly switchId: string; readonly value: string | boolean }[] = [
  { switchId: 'fencing', value: true },
  { switchId: 'idempotencyKey', value: true },
  { switchId: 'jobRecord', value: true },
  { switchId: 'uniqueKey', value: true },
  { switchId: 'checkConstraint', value: true },
  { switchId: 'rowLock', value: 'forUpdate' },
  { switchId: 'release', value: 'compare-and-delete' },
  { switchId: 'renewal', value: 'compare-and-extend' },
  { switchId: 'stopOnRenewFailure', value: true },
  { switchId: 'onError', value: 'discardConnection' },
];

const setupKey = (s: Scenario) => canonicalJson({ ...withoutFaults(s), title: '', description: '' });

/**
 * The rows for a scenario (deduplicated by setup: two rows never run the same mechanism), at most
 * `max` (default 9). Without a preset: the scenario, its single safeguards and all together.
 */
export function matrixRows(current: Scenario, preset: Preset | undefined, max = 9): MatrixRow[] {
  const rows: MatrixRow[] = [];
  const seen = new Set<string>();
  const add = (id: string, label: string, s: Scenario) => {
    const k = setupKey(s);
    if (seen.has(k) || rows.length >= max) return;
    seen.add(k);
    rows.push({ id, label, scenario: withoutFaults(s) });
  };
  const base = preset ? preset.withoutFix : current;
  if (preset) {
    add('without', 'Without the fix', preset.withoutFix);
    add('with', 'With the fix', preset.withFix);
  }
  add('current', preset ? 'Your edited mechanism' : 'This scenario', current);
  let all = base;
  const turned: string[] = [];
  for (const g of SAFEGUARDS) {
    const d = SWITCHES.find((x) => x.id === g.switchId);
    if (!d || !d.relevant(base) || d.get(base) === g.value) continue;
    const s = d.set(base, g.value);
    const name = d.short ?? d.label;
    const value = typeof g.value === 'boolean' ? '' : `: ${d.options?.find((o) => o.value === g.value)?.label ?? g.value}`;
    add(`+${d.id}`, `${preset ? 'Without the fix' : 'This scenario'} + ${name}${value}`, s);
    if (d.relevant(all)) { all = d.set(all, g.value); turned.push(d.short ?? d.label); }
  }
  if (turned.length > 1) add('+all', `${preset ? 'Without the fix' : 'This scenario'} + all of: ${turned.join(', ')}`, all);
  return rows;
}

/** One cell's result. */
export interface MatrixCell {
  readonly row: string;
  readonly kind: string;
  readonly outcome: ExploreOutcome;
}

/** A running matrix: cancel stops the cell in progress and every later one. */
export interface MatrixHandle {
  readonly done: Promise<{ cancelled: boolean }>;
  cancel(): void;
}

/** Runs every cell (rows in order, each row's kinds in order) and reports each as it ends. */
export function exploreMatrix(rows: readonly MatrixRow[], kinds: readonly string[], maxFaults: number, runners: readonly RangeRunner[], now: () => number, onCell: (c: MatrixCell) => void): MatrixHandle {
  let cancelled = false;
  let cancelCurrent: (() => void) | null = null;
  const done = (async () => {
    for (const row of rows) {
      const rowKinds = new Set(applicableKinds(row.scenario));
      for (const kind of kinds) {
        if (cancelled) return { cancelled: true };
        if (!rowKinds.has(kind)) continue;
        const h = exploreParallel(row.scenario, { maxFaults, kinds: [kind], runners, now });
        cancelCurrent = h.cancel;
        const outcome = await h.outcome;
        if (outcome.cancelled) return { cancelled: true };
        onCell({ row: row.id, kind, outcome });
      }
    }
    return { cancelled: false };
  })();
  return { done, cancel: () => { cancelled = true; cancelCurrent?.(); } };
}
