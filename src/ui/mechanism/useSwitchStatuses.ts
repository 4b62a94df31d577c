/**
 * The status of every switch shown for a scenario (`switchStatus` of the simulation core: one run
 * per other value of each switch, ~1 ms a run), computed after the edit's frame in slices of at
 * most ~8 ms, so that neither the verdict's frame nor the second after it gets a long task.
 * Memoised per scenario object. Until the slices are done it returns the statuses of the previous
 * scenario of the same preset (an edit does not make disabled switches jump back into the list for
 * a frame), or null for another scenario.
 */
import { useEffect, useState } from 'react';
import { relevantSwitches, switchStatus, type Scenario, type SwitchStatus } from '../../sim';

const done = new WeakMap<Scenario, ReadonlyMap<string, SwitchStatus>>();
const SLICE_MS = 8;

/** Statuses by switch id for `s`, or null while they are being computed. */
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
    let i = 0;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const slice = () => {
      const t0 = performance.now();
      while (i < defs.length && performance.now() - t0 < SLICE_MS) {
        const d = defs[i++]!;
        m.set(d.id, switchStatus(s, d));
      }
      if (i < defs.length) timer = setTimeout(slice, 0);
      else {
        timer = null;
        done.set(s, m);
        setState({ s, m });
      }
    };
    timer = setTimeout(slice, 0);
    return () => {
      if (timer !== null) clearTimeout(timer);
    };
  }, [s]);
  return state && (state.s === s || state.s.id === s.id) ? state.m : null;
}
