/**
 * Editing a worker's steps without moving its faults to other steps: a fault placed at a step
 * (`step` + `phase`) follows that step when steps are moved or removed before it; a fault whose
 * step is removed is placed at the time it fired in the running scenario (or removed when it
 * never fired), and the edit says so. Works on the editor's draft (any JSON, possibly invalid).
 */

/** One edit of worker `worker`'s step list: remove step `index`, or move it by `delta` (±1). */
export type StepOp = { readonly kind: 'remove'; readonly index: number } | { readonly kind: 'move'; readonly index: number; readonly delta: -1 | 1 };

/** The draft after a step edit, and one sentence per fault whose placement had to change. */
export interface StepEditResult {
  readonly value: unknown;
  readonly notices: readonly { readonly path: string; readonly message: string }[];
}

import { fmtTime } from '../../sim';

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Where step `i` goes under the op: its new index, or null when it is the removed step. */
function newIndex(op: StepOp, i: number): number | null {
  if (op.kind === 'remove') return i === op.index ? null : i > op.index ? i - 1 : i;
  const other = op.index + op.delta;
  return i === op.index ? other : i === other ? op.index : i;
}

/**
 * Applies `op` to the steps of the worker at `workerIndex` in `draft`, re-targets the faults that
 * name that worker's steps, and lists what it did to faults whose step was removed. `firedAtMs(i)`
 * is when fault `i` fired in the running scenario (null: it never fired). `describe(i)` words
 * fault `i` as it was (for the notice). Returns the draft unchanged when the op does not apply.
 */
export function editSteps(draft: unknown, workerIndex: number, op: StepOp, firedAtMs: (i: number) => number | null, describe: (i: number) => string): StepEditResult {
  if (!isObj(draft) || !Array.isArray(draft.workers)) return { value: draft, notices: [] };
  const worker = draft.workers[workerIndex];
  if (!isObj(worker) || !Array.isArray(worker.steps)) return { value: draft, notices: [] };
  const steps = worker.steps as unknown[];
  const n = steps.length;
  if (op.index < 0 || op.index >= n || (op.kind === 'move' && (op.index + op.delta < 0 || op.index + op.delta >= n))) return { value: draft, notices: [] };
  const nextSteps = op.kind === 'remove'
    ? steps.filter((_, k) => k !== op.index)
    : steps.map((s, k) => (k === op.index ? steps[op.index + op.delta] : k === op.index + op.delta ? steps[op.index] : s));
  const workers = draft.workers.map((w, k) => (k === workerIndex ? { ...worker, steps: nextSteps } : w));
  const notices: { path: string; message: string }[] = [];
  const faults: unknown[] = [];
  const faultList = Array.isArray(draft.faults) ? draft.faults : null;
  faultList?.forEach((f, i) => {
    if (!isObj(f) || f.worker !== worker.id || typeof f.step !== 'number') return void faults.push(f);
    const to = newIndex(op, f.step);
    if (to !== null) return void faults.push({ ...f, step: to });
    const at = firedAtMs(i);
    const { step: _s, phase: _p, ...rest } = f;
    if (at === null) {
      notices.push({ path: `faults[${i}]`, message: `${describe(i)}: that step was removed and the fault never fired, so it was removed too.` });
      return;
    }
    faults.push({ ...rest, atMs: at });
    notices.push({ path: `faults[${i}]`, message: `${describe(i)}: that step was removed, so the fault now fires at the time it fired before (${fmtTime(at)}).` });
  });
  return { value: { ...draft, workers, ...(faultList ? { faults } : {}) }, notices };
}
