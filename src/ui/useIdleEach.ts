/**
 * `useIdleEach(items, f)`: `f` of each item, computed one item per idle step after the frame
 * (`runWhenIdle`), for work that must not delay the frame that shows `items` — the fault menu's and
 * the Faults panel's "No effect here" runs. Returns the results so far, in order (fewer than the
 * items until the steps are done), and none for items other than the current ones. A new `items`
 * array (or `f`) starts again; keep both stable between renders (useMemo, useCallback).
 */
import { useEffect, useState } from 'react';
import { runWhenIdle } from './idle';

/** The results of `f` over `items` so far (see the module's comment). */
export function useIdleEach<T, R>(items: readonly T[], f: (item: T, index: number) => R): readonly R[] {
  const [state, setState] = useState<{ readonly items: readonly T[]; readonly f: (item: T, index: number) => R; readonly results: readonly R[] } | null>(null);
  useEffect(() => {
    if (items.length === 0) return;
    const results: R[] = [];
    return runWhenIdle(() => {
      const i = results.length;
      results.push(f(items[i]!, i));
      setState({ items, f, results: [...results] });
      return results.length < items.length;
    });
  }, [items, f]);
  return state && state.items === items && state.f === f ? state.results : [];
}
