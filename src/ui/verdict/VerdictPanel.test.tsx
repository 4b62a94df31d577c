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

  it('draws the metrics as labelled charts', async () => {
    renderIn(store, <MetricsCharts run={deriveRun(findPreset('export-lease-expiry')!.withFix)} />);
    await userEvent.click(screen.getByRole('radio', { name: 'whole run' }));
    expect(screen.getByTestId('metrics-scope')).toHaveTextContent('whole run');
    expect(screen.getByRole('img', { name: /Counts: .*1 stale write rejected/ })).toBeInTheDocument();
    expect(screen.getByRole('img', { name: /Lease age at commit/ })).toBeInTheDocument();
  });

  it('counts the metrics up to the cursor, or over the whole run, and says which', async () => {
    store.getState().loadPreset('export-lease-expiry', 'without');
    const run = deriveRun(store.getState().composed);
    renderIn(store, <MetricsCharts run={run} />);
    // At 0 s nothing has been uploaded yet: no duplicate, whatever the whole run says.
    expect(screen.getByTestId('metrics-scope')).toHaveTextContent('up to the cursor (0 ms)');
    expect(screen.getByRole('img', { name: /Counts: .*0 duplicates/ })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('radio', { name: 'whole run' }));
    expect(screen.getByTestId('metrics-scope')).toHaveTextContent('whole run');
    expect(screen.getByRole('img', { name: new RegExp(`Counts: .*${run.metrics.duplicateEffects} duplicate`) })).toBeInTheDocument();
    expect(run.metrics.duplicateEffects).toBeGreaterThan(0);
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
