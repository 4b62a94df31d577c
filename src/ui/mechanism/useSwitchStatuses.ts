/**
 * The status of every switch shown for a scenario (`switchStatuses` of the simulation core: one
 * run per other value of each switch, ~1 ms a run for a preset, ~50 ms for a 2,000-event run),
 * computed in a Web Worker (`switchStatusClient.ts`), or where none runs in the browser's idle time
 * after the edit's frame is painted (`runWhenIdle`, one run a slice), so that neither the verdict's
 * frame nor the second after it gets a long task. Memoised per scenario object. Until it is done it returns the
 * statuses of the previous scenario of the same preset (an edit does not make the disabled
 * switches jump back into the list for a frame), or null for another scenario.
 */
import { useEffect, useState } from 'react';
import { relevantSwitches, switchStatusSteps, type Scenario, type SwitchStatus } from '../../sim';
import { afterPaint, runWhenIdle } from '../idle';
import { requestSwitchStatuses } from './switchStatusClient';

const done = new WeakMap<Scenario, ReadonlyMap<string, SwitchStatus>>();

/** Statuses by switch id for `s` (or, while they are being computed, the previous ones; see above). */
export function useSwitchStatuses(s: Scenario): ReadonlyMap<string, SwitchStatus> | null {
  const [state, setState] = useState<{ readonly s: Scenario; readonly m: ReadonlyMap<string, SwitchStatus> } | null>(() => {
    const m = done.get(s);
    return m ? { s, m } : null;
  });
  useEffect(() => {
    const cached = done.get(s);
    if (cached) {
      setState({ s, m: cached });
      return;
    }
    const defs = relevantSwitches(s);
    if (defs.length === 0) {
      const m = new Map<string, SwitchStatus>();
      done.set(s, m);
      setState({ s, m });
      return;
    }
    const finish = (m: ReadonlyMap<string, SwitchStatus>) => {
      done.set(s, m);
      setState({ s, m });
    };
    let cancelIdle: (() => void) | null = null;
    const inIdleTime = () => {
      const m = new Map<string, SwitchStatus>();
      let i = 0;
      let steps = defs[0] ? switchStatusSteps(s, defs[0]) : null;
      cancelIdle = runWhenIdle(() => {
        if (!steps) return false;
        const r = steps.next();
        if (!r.done) return true;
        m.set(defs[i]!.id, r.value);
        i += 1;
        steps = defs[i] ? switchStatusSteps(s, defs[i]!) : null;
        if (steps) return true;
        finish(m);
        return false;
      });
    };
    // Off the main thread where a Web Worker runs; else (jsdom, a worker that failed) in idle slices.
    // Asked after the edit's frame is painted: an effect of a click runs inside the click's task,
    // and posting the scenario to the worker (a structured clone) cost ~1–3 ms of that frame.
    let cancelWorker: (() => void) | null = null;
    const cancelPaint = afterPaint(() => {
      cancelWorker = requestSwitchStatuses(s, finish, inIdleTime);
      if (!cancelWorker) inIdleTime();
    });
    return () => {
      cancelPaint();
      (cancelWorker as (() => void) | null)?.();
      (cancelIdle as (() => void) | null)?.();
    };
  }, [s]);
  return state && (state.s === s || state.s.id === s.id) ? state.m : null;
}
