// @vitest-environment jsdom
import { render, screen, within } from '@testing-library/react';
import { findPreset } from '../../sim';
import { deriveRun, indexOfEvent } from '../store/derive';
import { Inspector } from './Inspector';

const preset = findPreset('export-lease-expiry')!;

describe('Inspector', () => {
  it('shows only the resources the scenario has: unsafe-release writes no file and opens no connection', () => {
    const run = deriveRun(findPreset('unsafe-release')!.withoutFix);
    const last = run.events.length - 1;
    render(<Inspector run={run} index={last} cursorMs={run.events[last]!.atMs} />);
    expect(screen.queryByRole('heading', { name: /Destination/ })).toBeNull();
    expect(screen.queryByText(/exports\/2026-11-30\.csv/)).toBeNull();
    expect(screen.queryByRole('heading', { name: 'Connection pool' })).toBeNull();
    expect(screen.getByTestId('worker-A')).toBeInTheDocument();
  });

  it('groups the connections by the process whose pool they belong to, a helper\'s second connection with its worker', async () => {
    const { parseScenario } = await import('../../sim');
    const fixture = await import('../../sim/scenario/fixtures/scenario-v2-helper-lock.json');
    const parsed = parseScenario(fixture.default);
    if (!parsed.ok) throw new Error('the helper-lock fixture does not parse');
    const run = deriveRun(parsed.scenario);
    const last = run.events.length - 1;
    render(<Inspector run={run} index={last} cursorMs={run.events[last]!.atMs} />);
    expect(screen.getByRole('heading', { name: 'Connection pools (one per process)' })).toBeInTheDocument();
    expect(screen.getByTestId('pool-state')).toHaveTextContent('process web-1: c1 A, c2 A, c3 idle, c4 idle');
  });

  it('failover-fence with the fix: the fencing source is the sequence fence_seq, not the Redis key fence:export that nobody increments', () => {
    const run = deriveRun(findPreset('failover-fence')!.withFix);
    const last = run.events.length - 1;
    render(<Inspector run={run} index={last} cursorMs={run.events[last]!.atMs} />);
    expect(screen.queryByText(/Fencing counter/)).toBeNull();
    expect(screen.getByTestId('fencing-source')).toHaveTextContent("Fencing tokens from PostgreSQL sequence fence_seq (SELECT nextval('fence_seq')) · last token issued: 34 · fence:export = 32 in Redis: not a source of this run's tokens (nothing increments it)");
  });

  it('failover-fence without the fix: the fencing source is Redis INCR of fence:export, with the value Redis holds', () => {
    const run = deriveRun(findPreset('failover-fence')!.withoutFix);
    const last = run.events.length - 1;
    render(<Inspector run={run} index={last} cursorMs={run.events[last]!.atMs} />);
    expect(screen.getByTestId('fencing-source')).toHaveTextContent(/^Fencing tokens from Redis INCR of fence:export · fence:export = \d+ · last token issued: \d+$/);
  });

  it('shows the lease owner, token and remaining TTL of the snapshot at the cursor', () => {
    const run = deriveRun(preset.withFix);
    const i = run.events.findIndex((e) => e.narration.startsWith('B gets fencing token'));
    const at = run.events[i]!.atMs;
    render(<Inspector run={run} index={i} cursorMs={at + 10_000} />);
    const row = screen.getByTestId('lease-lease:export');
    expect(within(row).getAllByRole('cell').map((c) => c.textContent)).toEqual(['a5e3', 'B', '34', '20 s']);
    expect(screen.getByText(/B believes it owns lease:export, token 34/)).toBeInTheDocument();
  });

  it('shows a paused worker that still believes it owns the lease after it expired', () => {
    const run = deriveRun(preset.withoutFix);
    const i = indexOfEvent(run, run.events.find((e) => e.narration.startsWith('B takes the lease'))!.id);
    render(<Inspector run={run} index={i} cursorMs={run.events[i]!.atMs} />);
    const a = screen.getByTestId('worker-A');
    expect(a).toHaveTextContent('paused');
    expect(a).toHaveTextContent('A believes it owns lease:export');
    expect(within(screen.getByTestId('lease-lease:export')).getByText('B')).toBeInTheDocument();
  });

  it('says a worker polling an empty queue is polling, as its lane does (its machine says working)', () => {
    const run = deriveRun(findPreset('queue-redelivery')!.withFix);
    // e9: B's fifth empty ReceiveMessage; A is working on m1.
    const i = indexOfEvent(run, 'e9');
    expect(run.events[i]!).toMatchObject({ actor: 'B', state: 'working', reply: 'Messages: [] (none visible)' });
    render(<Inspector run={run} index={i} cursorMs={run.events[i]!.atMs} />);
    expect(within(screen.getByTestId('worker-B')).getAllByRole('cell')[0]).toHaveTextContent(/^polling$/);
    expect(within(screen.getByTestId('worker-A')).getAllByRole('cell')[0]).toHaveTextContent(/^working$/);
  });

  it('says the admin script is done once its statement is answered, as its lane ends there (its machine stays working after the 23505)', () => {
    const run = deriveRun(findPreset('admin-bypass')!.withFix);
    const answered = run.events.findIndex((e) => e.actor === 'admin' && (e.reply ?? '').startsWith('ERROR 23505'));
    const state = (i: number) => {
      const view = render(<Inspector run={run} index={i} cursorMs={run.events[i]!.atMs} />);
      const text = within(screen.getByTestId('worker-admin')).getAllByRole('cell')[0]!.textContent;
      view.unmount();
      return text;
    };
    expect(state(answered - 1)).toBe('waiting');
    expect(run.snapshots.at(-1)!.workers.find((w) => w.id === 'admin')!.state).toBe('working');
    expect(state(answered)).toBe('done');
    expect(state(run.events.length - 1)).toBe('done');
  });

  it('lists the stale upload as rejected in the destination table', () => {
    const run = deriveRun(preset.withFix);
    render(<Inspector run={run} index={run.events.length - 1} cursorMs={run.endMs} />);
    expect(screen.getByTestId('write-2')).toHaveTextContent(/A.*33.*rejected \(stale\)/);
    expect(screen.getByTestId('write-1')).toHaveTextContent(/B.*34.*accepted/);
  });

  it('behind PgBouncer: which client each server connection serves, and a lock held by a backend no client is linked to', () => {
    const run = deriveRun(findPreset('pooler-session-lock')!.withoutFix);
    // When A's unlock has run on s2 (s2 is linked to A's client for that one statement): B's transaction is on s1, which still holds the lock.
    const i = indexOfEvent(run, run.events.find((e) => e.command === 'SELECT pg_advisory_unlock(42)' && e.actor === 'A')!.id);
    render(<Inspector run={run} index={i} cursorMs={run.events[i]!.atMs} />);
    expect(screen.getByTestId('pooler-routing')).toHaveTextContent('PgBouncer (transaction mode): s1 → c2 (B) · s2 → c1 (A)');
    const table = screen.getByRole('table', { name: 'Database locks (pg_locks)' });
    expect(within(table).getAllByText(/s1 \(server connection for c2, B\)/).length).toBeGreaterThan(0);
  });

  it('shows a pg_locks row for a waiting advisory lock', () => {
    const run = deriveRun(findPreset('session-lock-pool')!.withFix);
    const i = run.snapshots.findIndex((s) => s.pgLocks.some((l) => !l.granted));
    render(<Inspector run={run} index={i} cursorMs={run.events[i]!.atMs} />);
    const table = screen.getByRole('table', { name: 'Database locks (pg_locks)' });
    expect(within(table).getAllByText('(waits)').length).toBeGreaterThan(0);
    expect(within(table).getAllByText('t').length).toBeGreaterThan(0);
  });

  it('lists an uncommitted INSERT as PostgreSQL does (its transaction id and the table lock), its row lock apart', () => {
    const run = deriveRun(findPreset('invoice-race')!.withoutFix);
    const i = run.snapshots.findIndex((s) => s.pgLocks.some((l) => l.locktype === 'relation' && l.mode === 'RowExclusiveLock'));
    expect(i).toBeGreaterThanOrEqual(0);
    render(<Inspector run={run} index={i} cursorMs={run.events[i]!.atMs} />);
    const table = screen.getByRole('table', { name: 'Database locks (pg_locks)' });
    expect(within(table).getAllByText('RowExclusiveLock').length).toBeGreaterThan(0);
    expect(within(table).getAllByText('own transaction id').length).toBeGreaterThan(0);
    expect(within(table).queryByText('tuple')).toBeNull();
    expect(screen.getByRole('table', { name: 'Row locks (tuple headers)' })).toHaveTextContent(/invoices row/);
  });

  it('draws who waits for whom at the cursor, the deadlock cycle highlighted (lock-order-deadlock)', () => {
    const run = deriveRun(findPreset('lock-order-deadlock')!.withoutFix);
    const i = run.events.findIndex((e) => e.actor === 'B' && (e.reply ?? '').startsWith('waits'));
    render(<Inspector run={run} index={i} cursorMs={run.events[i]!.atMs} />);
    const graph = screen.getByTestId('wait-for-graph');
    expect([...graph.querySelectorAll('li')].map((li) => li.textContent)).toEqual([
      'A (c1) waits for B (c2): advisory lock 2 — on the cycle',
      'B (c2) waits for A (c1): advisory lock 1 — on the cycle',
    ]);
    expect(graph.querySelectorAll('line.wf-edge.cycle')).toHaveLength(2);
    expect(screen.getByRole('img', { name: /Wait-for graph: A \(c1\) waits for B \(c2\); B \(c2\) waits for A \(c1\); a cycle/ })).toBeInTheDocument();
    expect(screen.getByTestId('wait-for-deadlock')).toHaveTextContent('40P01');
  });

  it('draws a wait without a cycle plainly, and no graph once nobody waits', () => {
    const run = deriveRun(findPreset('lock-order-deadlock')!.withFix);
    const i = run.events.findIndex((e) => (e.reply ?? '').startsWith('waits'));
    const { unmount } = render(<Inspector run={run} index={i} cursorMs={run.events[i]!.atMs} />);
    const graph = screen.getByTestId('wait-for-graph');
    expect([...graph.querySelectorAll('li')].map((li) => li.textContent)).toEqual(['B (c2) waits for A (c1): advisory lock 1']);
    expect(graph.querySelectorAll('line.cycle')).toHaveLength(0);
    expect(screen.queryByTestId('wait-for-deadlock')).toBeNull();
    unmount();
    render(<Inspector run={run} index={run.events.length - 1} cursorMs={run.endMs} />);
    expect(screen.queryByTestId('wait-for-graph')).toBeNull();
  });

  it('says nothing has happened before the first event', () => {
    render(<Inspector run={deriveRun(preset.withoutFix)} index={-1} cursorMs={0} />);
    expect(screen.getByText(/Before the first event/)).toBeInTheDocument();
  });
});

describe('Inspector: the database sections only where the scenario uses the database', () => {
  it('a lease-only scenario shows no pg_locks table; an SQL one does', () => {
    const lease = deriveRun(findPreset('export-lease-expiry')!.withoutFix);
    const { unmount } = render(<Inspector run={lease} index={lease.events.length - 1} cursorMs={lease.endMs} />);
    expect(screen.queryByRole('table', { name: 'Database locks (pg_locks)' })).toBeNull();
    expect(screen.queryByText(/pg_locks is empty/)).toBeNull();
    unmount();
    const sql = deriveRun(findPreset('invoice-race')!.withoutFix);
    render(<Inspector run={sql} index={sql.events.length - 1} cursorMs={sql.endMs} />);
    expect(screen.getByText(/pg_locks is empty|Database locks/)).toBeInTheDocument();
  });
});

describe('the inspector shows the queue (issue 10: queues with at-least-once delivery)', () => {
  it('queue-redelivery: at every event each message is shown as the queue held it — visible, in flight with whom until when, deleted — with its deliveries (the inspector had no queue at all)', async () => {
    const { cleanup } = await import('@testing-library/react');
    const { queueMessageState } = await import('./Inspector');
    for (const s of [findPreset('queue-redelivery')!.withoutFix, findPreset('queue-redelivery')!.withFix]) {
      const run = deriveRun(s);
      let inFlightSeen = 0;
      for (let i = 0; i < run.events.length; i++) {
        const snap = run.snapshots[i]!;
        const msgs = snap.queue as { messageId: string; state: string; receivedBy: string | null; receiveCount: number; invisibleUntilMs: number | null }[];
        expect(msgs.length).toBeGreaterThan(0);
        render(<Inspector run={run} index={i} cursorMs={run.events[i]!.atMs} />);
        for (const m of msgs) {
          const row = screen.getByTestId(`queue-${m.messageId}`);
          const text = row.textContent ?? '';
          if (m.state === 'inFlight') {
            inFlightSeen += 1;
            expect(text).toContain(`in flight with ${m.receivedBy}`);
          } else expect(text).not.toContain('in flight');
          if (m.state === 'deleted') expect(text).toContain('deleted');
          expect(within(row).getAllByRole('cell').at(-1)!.textContent).toBe(String(m.receiveCount));
          expect(text).toContain(queueMessageState(m as Parameters<typeof queueMessageState>[0], run.events[i]!.atMs));
        }
        cleanup();
      }
      expect(inFlightSeen).toBeGreaterThan(0);
    }
  });

  it('words a message in flight with the time left from the cursor', async () => {
    const { queueMessageState } = await import('./Inspector');
    const m = { messageId: 'm1', body: 'charge-42', state: 'inFlight' as const, receivedBy: 'A', invisibleUntilMs: 30_000, receiveCount: 1 };
    expect(queueMessageState(m, 25_000)).toBe('in flight with A until 30 s (5 s more)');
    expect(queueMessageState({ ...m, state: 'visible', receivedBy: null, invisibleUntilMs: null }, 0)).toMatch(/^visible/);
    expect(queueMessageState({ ...m, state: 'deleted' }, 0)).toBe('deleted');
  });
});
