// @vitest-environment jsdom
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { findPreset } from '../../sim';
import { createLockscopeStore, deriveRun, type LockscopeStore } from '../store';
import { renderIn } from '../store/testing';
import { VerdictPanel } from './VerdictPanel';
import { MetricsCharts } from './MetricsCharts';

describe('VerdictPanel', () => {
  let store: LockscopeStore;
  beforeEach(() => {
    store = createLockscopeStore();
  });

  it('says violated in words and links to the cited events', async () => {
    const run = deriveRun(findPreset('invoice-race')!.withoutFix);
    const onEventId = vi.fn();
    renderIn(store, <VerdictPanel run={run} onEventId={onEventId} />);
    expect(screen.getByTestId('verdict')).toHaveTextContent('Violated');
    expect(screen.getByText(/2 rows exist for order_id = 42 in invoices/)).toBeInTheDocument();
    const cited = run.verdict.violations[0]!.eventIds;
    for (const id of cited) expect(screen.getByRole('button', { name: new RegExp(`Go to event ${id} `) })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: new RegExp(`Go to event ${cited[0]} `) }));
    expect(onEventId).toHaveBeenCalledWith(cited[0]);
  });

  it('says held when the fix is on', () => {
    renderIn(store, <VerdictPanel run={deriveRun(findPreset('invoice-race')!.withFix)} onEventId={() => {}} />);
    expect(screen.getByTestId('verdict')).toHaveTextContent('Held');
    expect(screen.getByText(/at most one row per business key/)).toBeInTheDocument();
  });

  it('reports harmless duplicates as redundant, not a violation', () => {
    renderIn(store, <VerdictPanel run={deriveRun(findPreset('thumbnail')!.withoutFix)} onEventId={() => {}} />);
    expect(screen.getByTestId('verdict')).toHaveTextContent('Held');
    expect(screen.getByText(/Redundant, not a violation/)).toBeInTheDocument();
  });

  it('draws a stuck wait cycle through the application (a liveness finding)', () => {
    const base = findPreset('balance-update')!.withoutFix;
    const run = deriveRun({
      ...base, horizonMs: 5_000, mechanism: { ...base.mechanism, lock: 'lease', rowLock: 'forUpdate' },
      workers: [
        { id: 'A', startMs: 0, amount: 30, steps: [{ do: 'begin' }, { do: 'read' }, { do: 'work', ms: 100 }, { do: 'acquire' }, { do: 'effect', ms: 0 }, { do: 'commit' }, { do: 'release' }] },
        { id: 'B', startMs: 10, amount: 50, steps: [{ do: 'acquire' }, { do: 'begin' }, { do: 'read' }, { do: 'effect', ms: 0 }, { do: 'commit' }, { do: 'release' }] },
      ],
    });
    renderIn(store, <VerdictPanel run={run} onEventId={() => {}} />);
    expect(screen.getByText(/stuck: wait cycle A→B→A/)).toBeInTheDocument();
    expect(screen.getByRole('img', { name: 'Wait cycle A → B → A' })).toBeInTheDocument();
    const items = [...screen.getByTestId('wait-for-graph').querySelectorAll('li')].map((li) => li.textContent);
    expect(items).toEqual([
      'A waits for B: B\'s lease lease:export (outside the database) — on the cycle',
      'B waits for A: row lock on accounts row id=1 held by A (session c1), in the database — on the cycle',
    ]);
  });

  it('draws the metrics as labelled charts', () => {
    renderIn(store, <MetricsCharts run={deriveRun(findPreset('export-lease-expiry')!.withFix)} />);
    expect(screen.getByRole('img', { name: /Counts: .*1 stale write rejected/ })).toBeInTheDocument();
    expect(screen.getByRole('img', { name: /Lease age at commit/ })).toBeInTheDocument();
  });

  it('hides the outcome in predict mode and offers to reveal it', async () => {
    const run = deriveRun(findPreset('invoice-race')!.withoutFix);
    store.getState().setView('simulate');
    store.getState().setMode('predict');
    renderIn(store, <VerdictPanel run={run} onEventId={() => {}} />);
    expect(screen.getByTestId('verdict')).toHaveTextContent('Verdict hidden');
    expect(screen.queryByText(/Violated/)).toBeNull();
    expect(screen.queryByText(/2 rows exist/)).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Reveal now' }));
    expect(store.getState().revealed).toBe(true);
    expect(screen.getByTestId('verdict')).toHaveTextContent('Violated');
  });
});
