// @vitest-environment jsdom
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { findPreset, parseScenario, fmtSeconds } from '../../sim';
import eventLimitCase from '../../sim/cases/event-limit-truncation.json';
import helperLockCase from '../../sim/scenario/fixtures/scenario-v2-helper-lock.json';
import helperPoolCase from '../../sim/scenario/fixtures/scenario-v2-helper-pool.json';
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
    expect(screen.getByTestId('verdict')).toHaveTextContent(/^✓Held — every invariant held$/);
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

  it('draws a cycle through a pool, and a worker that waits for itself through its helper as a loop', () => {
    const parse = (json: unknown) => {
      const r = parseScenario(json);
      if (!r.ok) throw new Error('a topology fixture does not parse');
      return r.scenario;
    };
    renderIn(store, <VerdictPanel run={deriveRun(parse(helperPoolCase))} onEventId={() => {}} />);
    expect(screen.getByRole('img', { name: 'Wait cycle A → B → A' })).toBeInTheDocument();
    expect([...screen.getByTestId('wait-for-graph').querySelectorAll('li')].map((li) => li.textContent)).toEqual([
      'A waits for B: a second connection from process web-1\'s pool for its helper, while it keeps c1 (all 2 in use: c1 by A, c2 by B) (outside the database) — on the cycle',
      'B waits for A: a second connection from process web-1\'s pool for its helper, while it keeps c2 (all 2 in use: c1 by A, c2 by B) (outside the database) — on the cycle',
    ]);
    document.body.innerHTML = '';
    renderIn(store, <VerdictPanel run={deriveRun(parse(helperLockCase))} onEventId={() => {}} />);
    const graph = screen.getByRole('img', { name: 'Wait cycle A → A' });
    expect(graph.querySelectorAll('path.wf-loop.cycle')).toHaveLength(1);
    expect(graph.querySelectorAll('circle')).toHaveLength(1);
  });

  it('lists a wait cycle before the bounded waits it causes (a newcomer met the symptoms first)', async () => {
    const { readFileSync } = await import('node:fs');
    const { parseScenario } = await import('../../sim');
    const parsed = parseScenario(JSON.parse(readFileSync('src/sim/scenario/fixtures/scenario-v2-helper-lock.json', 'utf8')));
    if (!parsed.ok) throw new Error('fixture');
    const run = deriveRun(parsed.scenario);
    expect(run.verdict.violations.map((v) => v.invariant)).toEqual(['boundedWait', 'noWaitCycle']);
    renderIn(store, <VerdictPanel run={run} onEventId={() => {}} />);
    expect([...document.querySelectorAll('.findings:not(.notes) > li .finding-msg')].map((e) => e.textContent!.slice(0, 18))).toEqual(['⚠ stuck: wait cycl', '⚠ A was still wait']);
  });

  it('says inconclusive, with where the run was cut short, for a run stopped by the event limit', () => {
    const parsed = parseScenario(eventLimitCase);
    if (!parsed.ok) throw new Error('event-limit-truncation.json does not parse');
    const run = deriveRun(parsed.scenario);
    renderIn(store, <VerdictPanel run={run} onEventId={() => {}} />);
    expect(screen.getByTestId('verdict')).toHaveTextContent(`Inconclusive — cut short at 20000 events / ${fmtSeconds(run.endMs)}`);
    expect(screen.getByTestId('verdict')).not.toHaveTextContent(/Held|Violated/);
    expect(screen.getByRole('region', { name: 'Verdict' })).toHaveClass('inconclusive');
    expect(screen.getByTestId('cut-short')).toHaveTextContent(/reached the event limit \(20000 events\).*Nothing was violated before then, which proves nothing\./);
  });

  it('says inconclusive when the horizon comes while a worker is still at its job and nothing was violated', () => {
    const s = findPreset('session-lock-pool')!.withoutFix;
    renderIn(store, <VerdictPanel run={deriveRun({ ...s, invariants: [{ kind: 'boundedWait', maxWaitMs: 9_800 }] })} onEventId={() => {}} />);
    expect(screen.getByTestId('verdict')).toHaveTextContent('Inconclusive — cut short at');
    expect(screen.getByTestId('cut-short')).toHaveTextContent('The 10 s horizon came while C was still at its job');
  });

  it('names a duplicate that no declared invariant checks, beside a held verdict', () => {
    const s = findPreset('export-lease-expiry')!.withFix;
    renderIn(store, <VerdictPanel run={deriveRun({ ...s, faults: [...s.faults, { kind: 'crash', worker: 'A', atMs: 10_000, restartAfterMs: 1_000 }] })} onEventId={() => {}} />);
    // The head says it too: "Held" alone read as "nothing went wrong" (a newcomer).
    expect(screen.getByTestId('verdict')).toHaveTextContent('Held — every invariant held, but a duplicate effect none of them checks happened (below)');
    expect(screen.getByText(/A duplicate, not checked here: exports\/2026-11-30\.csv \(job key export-2026-11-30\) was performed 2 times/)).toBeInTheDocument();
  });

  it('draws the metrics as labelled charts', async () => {
    renderIn(store, <MetricsCharts run={deriveRun(findPreset('export-lease-expiry')!.withFix)} />);
    await userEvent.click(screen.getByRole('radio', { name: 'whole run' }));
    expect(screen.getByTestId('metrics-scope')).toHaveTextContent('whole run');
    expect(screen.getByRole('img', { name: /Counts: .*1 stale write rejected/ })).toBeInTheDocument();
    expect(screen.getByRole('img', { name: /Lease age at commit/ })).toBeInTheDocument();
  });

  it('draws what the run measures: the pool wait a verdict speaks of, work thrown away; no lock latency without a lock', async () => {
    renderIn(store, <MetricsCharts run={deriveRun(findPreset('remote-call-in-txn')!.withoutFix)} />);
    await userEvent.click(screen.getByRole('radio', { name: 'whole run' }));
    expect(screen.getByRole('img', { name: /Waiting for a pooled connection: mean .*, max 2\.8 s/ })).toBeInTheDocument();
    expect(screen.queryByRole('img', { name: /Acquisition latency/ })).toBeNull();
  });

  it('pooler-session-lock: the acquisition latency counts C\'s wait that was never granted (8.5 s, still waiting), not only the granted ones (max 0 ms)', async () => {
    renderIn(store, <MetricsCharts run={deriveRun(findPreset('pooler-session-lock')!.withoutFix)} />);
    await userEvent.click(screen.getByRole('radio', { name: 'whole run' }));
    const chart = screen.getByRole('img', { name: /^Acquisition latency/ });
    expect(chart).toHaveAccessibleName('Acquisition latency: mean 0 ms (granted), max 0 ms (granted), waiting 1 still waiting, 8.5 s');
    expect(chart.textContent).toContain('1 still waiting, 8.5 s ⚠');
  });

  it('watchdog-starved with the fix: the renewed lease is 3 s old at commit and valid, so no warning; without the fix the commit on a lost lease is flagged', async () => {
    renderIn(store, <MetricsCharts run={deriveRun(findPreset('watchdog-starved')!.withFix)} />);
    await userEvent.click(screen.getByRole('radio', { name: 'whole run' }));
    const fixed = screen.getByRole('img', { name: /^Lease age at commit/ });
    expect(fixed).toHaveAccessibleName(/^Lease age at commit \(since its last renewal\): mean 3 s, max 3 s; TTL 10 s$/);
    expect(fixed.textContent).not.toContain('⚠');
  });

  it('watchdog-starved without the fix: the commit made after the lease was lost is warned about, in words', async () => {
    renderIn(store, <MetricsCharts run={deriveRun(findPreset('watchdog-starved')!.withoutFix)} />);
    await userEvent.click(screen.getByRole('radio', { name: 'whole run' }));
    const broken = screen.getByRole('img', { name: /^Lease age at commit/ });
    expect(broken).toHaveAccessibleName(/lost 1 commit on a lost lease/);
    expect(broken.textContent).toContain('⚠');
  });

  it('counts the metrics up to the cursor, or over the whole run, and says which', async () => {
    store.getState().loadPreset('export-lease-expiry', 'without');
    const run = deriveRun(store.getState().composed);
    renderIn(store, <MetricsCharts run={run} />);
    // At 0 s nothing has been uploaded yet: no duplicate, whatever the whole run says (a run of seconds: its instants in s).
    expect(screen.getByTestId('metrics-scope')).toHaveTextContent('up to the cursor (0 s)');
    expect(screen.getByRole('img', { name: /Counts: .*0 duplicates/ })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('radio', { name: 'whole run' }));
    expect(screen.getByTestId('metrics-scope')).toHaveTextContent('whole run');
    expect(screen.getByRole('img', { name: new RegExp(`Counts: .*${run.metrics.duplicateEffects} duplicate`) })).toBeInTheDocument();
    expect(run.metrics.duplicateEffects).toBeGreaterThan(0);
  });

  it('counts only what the scenario can make: no lease counters beside a lost update (a newcomer read three 0s there as "nothing went wrong")', async () => {
    store.getState().loadPreset('balance-update', 'without');
    const { unmount } = renderIn(store, <MetricsCharts run={deriveRun(store.getState().composed)} />);
    await userEvent.click(screen.getByRole('radio', { name: 'whole run' }));
    expect(screen.queryByRole('img', { name: /^Counts/ })).toBeNull();
    unmount();
    // export-lease-expiry: an effect per job key, no renewal, no fencing token without the fix; with it, the rejected stale write.
    store.getState().loadPreset('export-lease-expiry', 'without');
    const a = renderIn(store, <MetricsCharts run={deriveRun(store.getState().composed)} />);
    expect(screen.getByRole('img', { name: /^Counts/ })).toHaveAccessibleName('Counts: dup 0 duplicates');
    a.unmount();
    store.getState().loadPreset('export-lease-expiry', 'with');
    renderIn(store, <MetricsCharts run={deriveRun(store.getState().composed)} />);
    expect(screen.getByRole('img', { name: /^Counts/ })).toHaveAccessibleName('Counts: stale ✕ 0 stale writes rejected, dup 0 duplicates');
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

describe('brokenInWords', () => {
  it('counts invariants once, and says how often one broke', async () => {
    const { brokenInWords } = await import('./VerdictPanel');
    expect(brokenInWords([{ invariant: 'effectOnce' }])).toBe('1 invariant broken');
    expect(brokenInWords([{ invariant: 'boundedWait' }, { invariant: 'boundedWait' }])).toBe('1 invariant broken twice');
    expect(brokenInWords([{ invariant: 'boundedWait' }, { invariant: 'boundedWait' }, { invariant: 'boundedWait' }])).toBe('1 invariant broken 3 times');
    expect(brokenInWords([{ invariant: 'a' }, { invariant: 'b' }])).toBe('2 invariants broken');
    expect(brokenInWords([{ invariant: 'a' }, { invariant: 'b' }, { invariant: 'b' }])).toBe('2 invariants broken (3 findings)');
  });
});
