// @vitest-environment jsdom
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { act } from 'react';
import { ExplorePanel } from './ExplorePanel';
import { createLockscopeStore, deriveRun, type LockscopeStore } from '../store';
import { renderIn } from '../store/testing';
import { inlineRunner, type RangeJob, type RangeResult, type RangeRunner } from './coordinator';
import type { ExploreEnv } from './labels';
import { applicableKinds } from '../../sim/search/search';
import { matrixRows } from './matrix';
import { findPreset } from '../../sim';
import { firstDivergence } from '../compare/divergence';
import { compareScenario } from '../compare/compareScenario';

let t = 0;
const env: ExploreEnv = { runners: () => [inlineRunner(), inlineRunner()], now: () => (t += 10) };

/** Runners that never answer until released: a search that stays running. */
function stuckEnv(stopped: Set<number>): ExploreEnv {
  const runner = (id: number): RangeRunner => ({ run: (_j: RangeJob) => new Promise<RangeResult>(() => {}), stop: () => { stopped.add(id); } });
  return { runners: () => [runner(1), runner(2)], now: () => (t += 10) };
}

describe('ExplorePanel', () => {
  let store: LockscopeStore;
  beforeEach(() => { store = createLockscopeStore(); });

  it('offers N 1–3 (default 2) and every fault kind that applies, all ticked', () => {
    renderIn(store, <ExplorePanel env={env} />);
    expect(screen.getByLabelText('Faults per schedule')).toHaveValue('2');
    const kinds = within(screen.getByRole('group', { name: 'Fault kinds' })).getAllByRole('checkbox');
    expect(kinds).toHaveLength(applicableKinds(store.getState().composed).length);
    expect(kinds.every((k) => (k as HTMLInputElement).checked)).toBe(true);
  });

  it('finds the counterexample of export-lease-expiry without the fix, says it in words, and opens it in the simulator with its faults and the cursor on a cited event', async () => {
    const user = userEvent.setup();
    renderIn(store, <ExplorePanel env={env} />);
    await user.click(screen.getByRole('button', { name: 'Explore' }));
    const report = await screen.findByTestId('explore-report', {}, { timeout: 10_000 });
    expect(report).toHaveTextContent(/Broken with [12] faults?:/);
    expect(report).toHaveTextContent(/schedules? tried, \d+ distinct traces?/);
    expect(within(report).getAllByRole('listitem').length).toBeGreaterThan(0);
    await user.click(screen.getByRole('button', { name: 'Open in the simulator' }));
    const s = store.getState();
    expect(s.view).toBe('simulate');
    expect(s.faults.length).toBeGreaterThan(0);
    expect(s.badge?.action).toMatch(/^Counterexample: /);
    const run = deriveRun(s.composed);
    expect(run.verdict.violations.length).toBeGreaterThan(0);
    expect(run.verdict.violations.flatMap((v) => v.eventIds)).toContain(run.events[s.cursorIndex]!.id);
  });

  it('"Replay against another mechanism" opens compare on the other variant under the same faults, the cursor on the first divergence', async () => {
    const user = userEvent.setup();
    renderIn(store, <ExplorePanel env={env} />);
    await user.click(screen.getByRole('button', { name: 'Explore' }));
    await screen.findByTestId('explore-report', {}, { timeout: 10_000 });
    await user.click(screen.getByRole('button', { name: 'Replay against another mechanism' }));
    const s = store.getState();
    expect(s.view).toBe('compare');
    expect(s.compareTarget).toEqual({ kind: 'otherVariant' });
    const right = compareScenario(s.composed, s.presetId, s.variant, s.compareTarget);
    expect(right.faults).toEqual(s.faults);
    expect(right.mechanism).toEqual(findPreset('export-lease-expiry')!.withFix.mechanism);
    const d = firstDivergence(deriveRun(s.composed).events, deriveRun(right).events)!;
    expect(s.cursorIndex).toBe(d.leftIndex);
  });

  it('says how far it looked when nothing breaks', async () => {
    const user = userEvent.setup();
    act(() => store.getState().loadPreset('crash-after-effect', 'with'));
    renderIn(store, <ExplorePanel env={env} />);
    await user.selectOptions(screen.getByLabelText('Faults per schedule'), '1');
    // Only pauses: crash-after-effect's fix holds against them.
    for (const box of within(screen.getByRole('group', { name: 'Fault kinds' })).getAllByRole('checkbox')) {
      if (!box.parentElement!.textContent!.includes('pause')) await user.click(box);
    }
    await user.click(screen.getByRole('button', { name: 'Explore' }));
    const report = await screen.findByTestId('explore-report', {}, { timeout: 10_000 });
    expect(report).toHaveTextContent(/No violation with ≤ 1 fault of these kinds \(\d+ schedules\): pause\./);
  });

  it('shows progress while running, and Cancel stops every runner and says what was tried', async () => {
    const user = userEvent.setup();
    const stopped = new Set<number>();
    renderIn(store, <ExplorePanel env={stuckEnv(stopped)} />);
    await user.click(screen.getByRole('button', { name: 'Explore' }));
    expect(screen.getByTestId('explore-progress')).toHaveTextContent('Starting the workers');
    expect(screen.getByLabelText('Faults per schedule')).toBeDisabled();
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.getByTestId('explore-report')).toHaveTextContent(/^.*Cancelled: no violation in the 0 schedules tried so far/));
    expect([...stopped].sort()).toEqual([1, 2]);
    expect(screen.getByRole('button', { name: 'Explore' })).toBeEnabled();
  });

  it('fills the matrix cell by cell: the fix row is safe against pauses where the row without it breaks', async () => {
    const user = userEvent.setup();
    renderIn(store, <ExplorePanel env={env} />);
    await user.selectOptions(screen.getByLabelText('Faults per schedule'), '1');
    for (const box of within(screen.getByRole('group', { name: 'Fault kinds' })).getAllByRole('checkbox')) {
      if (!box.parentElement!.textContent!.includes('pause')) await user.click(box);
    }
    await user.click(screen.getByRole('button', { name: 'Compute the matrix' }));
    // One search at a time.
    expect(screen.getByRole('button', { name: 'Explore' })).toBeDisabled();
    await waitFor(() => expect(screen.getByRole('button', { name: 'Compute again' })).toBeInTheDocument(), { timeout: 20_000 });
    expect(screen.getByTestId('cell-without-pause')).toHaveTextContent('breaks with 1 fault');
    expect(screen.getByTestId('cell-with-pause')).toHaveTextContent(/safe up to 1 fault \(\d+ schedules\)/);
  });
});

describe('matrixRows', () => {
  it('the two variants, then one safeguard at a time on the variant without the fix, then all together; no two rows run one mechanism', () => {
    const p = findPreset('unsafe-release')!;
    const rows = matrixRows(p.withoutFix, p);
    expect(rows.slice(0, 2).map((r) => r.id)).toEqual(['without', 'with']);
    expect(rows.some((r) => r.id === 'current')).toBe(false);
    expect(rows.some((r) => r.id === '+fencing')).toBe(true);
    expect(rows.at(-1)!.id).toBe('+all');
    expect(rows.at(-1)!.scenario.mechanism).toMatchObject({ fencing: true, release: 'compare-and-delete', renewal: 'compare-and-extend' });
    const keys = rows.map((r) => JSON.stringify([r.scenario.mechanism, r.scenario.destination]));
    expect(new Set(keys).size).toBe(rows.length);
    expect(rows.every((r) => r.scenario.faults.length === 0)).toBe(true);
    const edited = { ...p.withoutFix, lease: { ...p.withoutFix.lease, ttlMs: p.withoutFix.lease.ttlMs + 1000 } };
    expect(matrixRows(edited, p).map((r) => r.id)).toContain('current');
  });
});
