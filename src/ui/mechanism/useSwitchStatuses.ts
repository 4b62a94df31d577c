/**
 * The status of every switch shown for a scenario (`switchStatusSteps` of the simulation core: one
 * run per other value of each switch, ~1 ms a run), computed in the browser's idle time after the
 * edit's frame is painted (`runWhenIdle`), so that neither the verdict's frame nor the second
 * after it gets a long task. Memoised per scenario object. Until it is done it returns the
 * statuses of the previous scenario of the same preset (an edit does not make the disabled
 * switches jump back into the list for a frame), or null for another scenario.
 */
import { useEffect, useState } from 'react';
import { relevantSwitches, switchStatusSteps, type Scenario, type SwitchStatus } from '../../sim';
import { runWhenIdle } from '../idle';

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
    const m = new Map<string, SwitchStatus>();
    if (defs.length === 0) {
      done.set(s, m);
      setState({ s, m });
      return;
    }
    let i = 0;
    let steps = defs[0] ? switchStatusSteps(s, defs[0]) : null;
    return runWhenIdle(() => {
      if (!steps) return false;
      const r = steps.next();
      if (!r.done) return true;
      m.set(defs[i]!.id, r.value);
      i += 1;
      steps = defs[i] ? switchStatusSteps(s, defs[i]!) : null;
      if (steps) return true;
      done.set(s, m);
      setState({ s, m });
      return false;
    });
  }, [s]);
  return state && (state.s === s || state.s.id === s.id) ? state.m : null;
}
