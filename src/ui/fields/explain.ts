/**
 * What is wrong with one field's value, in the words of the field: the scenario's own validation
 * (src/sim's `validateScenario`, the one source of the rules) run on the scenario with that value,
 * its messages about the field rephrased for a field typed in seconds.
 */
import { validateScenario, type Scenario } from '../../sim';
import { fmtSeconds } from '../faults/faultCatalog';
import { realWhy } from './words';
import type { FieldUnit } from './SecondsInput';

/**
 * Rephrases a validation message about a millisecond field shown in seconds (or, with `unit`
 * 'ms', in milliseconds: "Must be more than 0 ms.").
 */
export function inSeconds(message: string, unit: FieldUnit = 's'): string {
  const horizon = /must be ≤ horizonMs \((\d+)\)/.exec(message);
  // The horizon, not where the events end: a run stops at its horizon (Horizon in the editor), so a later fault never fires.
  if (horizon) return `Must be at most ${fmtSeconds(Number(horizon[1]))}, the scenario's horizon: the run stops there, so a later fault would never fire.`;
  if (/^must be ≥ 1$/.test(message)) return `Must be more than 0 ${unit}.`;
  const le = /^must be ≤ (\d+)$/.exec(message);
  if (le) return `Must be at most ${fmtSeconds(Number(le[1]))}.`;
  return `${message.charAt(0).toUpperCase()}${message.slice(1)}${message.endsWith('.') ? '' : '.'}`;
}

/**
 * The first problem `candidate` has at `path` or below it (e.g. `faults[2]`, `lease.ttlMs`),
 * rephrased for a field typed in `unit` (seconds by default); null when there is none there.
 */
export function problemAt(candidate: Scenario, path: string, unit: FieldUnit = 's'): string | null {
  const r = validateScenario(candidate);
  if (r.ok) return null;
  const hit = r.errors.find((e) => e.path === path || e.path.startsWith(`${path}.`) || e.path.startsWith(`${path}[`));
  if (!hit) return null;
  // The real system's reason, when it refuses the value too (./words.ts).
  const why = realWhy(hit.path, hit.message);
  return `${inSeconds(hit.message, unit)}${why ? ` Why: ${why}` : ''}`;
}
