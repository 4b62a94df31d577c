/**
 * The inspector: the world at the cursor, read from the run's cached snapshot. Workers with their
 * machine state and beliefs in words, lease keys with owner, token and remaining TTL, a
 * `pg_locks` as PostgreSQL shows it (plus the row locks it keeps in tuple headers), the wait-for
 * graph (who waits for whom, a cycle highlighted), table rows, destination writes and the connection pool.
 */
import { leaseEntriesOf, usesDatabase, usesDestination, type EtcdSnapshot, type PgLockRow, type PoolerSnapshot, type WorldSnapshot } from '../../sim';
import type { QueueMessageSnapshot } from '../../sim/resources/messageQueue';
import type { ReactNode } from 'react';
import type { DerivedRun } from '../store/derive';
import { beliefsInWords, heldLockWords } from './beliefs';
import { LANE_STATE_TEXT, laneStateOf } from '../timeline/lanes/worker';
import { fmtSeconds } from '../faults/faultCatalog';
import { runTimeFormatter } from '../timeline/lanes';
import { WaitForGraph, waitForAtCursor } from './WaitForGraph';
import { TableBox } from './TableBox';
import { fencingSourceAt } from './fenceSource';

/** The object column of a `pg_locks` line, in the model's names (a table, a row, whose transaction, an advisory key). */
export function pgLockObject(l: PgLockRow): string {
  switch (l.locktype) {
    case 'relation':
      return l.relation ?? '';
    case 'tuple':
      return `${l.relation ?? ''} row ${l.row ?? ''}`;
    case 'transactionid':
      return l.xactOf === l.sessionId ? 'own transaction id' : `transaction of ${l.xactOf ?? '?'}`;
    case 'virtualxid':
      return 'own virtual transaction id';
    case 'advisory':
      return `advisory ${l.advisoryKey ?? ''}`;
  }
}

function borrowerText(snap: WorldSnapshot, sessionId: string): string {
  const pooler = poolerOf(snap);
  if (pooler !== null) {
    // Behind PgBouncer a session is a server connection: name the client linked to it and that client's worker.
    const client = pooler.servers.find((x) => x.id === sessionId)?.client;
    if (client === undefined) return '';
    if (client === null) return ' (server connection, idle in PgBouncer)';
    const worker = snap.pool.connections.find((c) => c.id === client)?.borrower;
    return ` (server connection for ${client}${worker ? `, ${worker}` : ''})`;
  }
  const borrower = snap.pool.connections.find((c) => c.id === sessionId)?.borrower;
  return borrower ? ` (${borrower})` : borrower === null ? ' (idle in pool)' : '';
}

/**
 * A pg_locks word with line-break opportunities between its parts (`Row·Exclusive·Lock`,
 * `transaction·id`, `virtual·xid`), so a narrow column can wrap it; the text is unchanged.
 */
function breakable(word: string): ReactNode {
  return word.split(/(?=[A-Z])|(?<=^transaction)(?=id$)|(?<=^virtual)(?=xid$)/).flatMap((w, i) => (i === 0 ? [w] : [<wbr key={i} />, w]));
}

/**
 * The application's pool: `c1: A · c2: idle`; with processes (scenario version 2) grouped by the
 * process whose pool each connection belongs to: `process web-1: c1 A, c2 A · process web-2: c3 idle` (a worker whose helper holds a second connection appears twice).
 */
function poolText(snap: WorldSnapshot): string {
  const conns = snap.pool.connections;
  if (conns.every((c) => c.process === undefined)) return conns.map((c) => `${c.id}: ${c.borrower ?? 'idle'}`).join(' · ');
  const groups = new Map<string, string[]>();
  for (const c of conns) {
    const key = c.process === undefined ? 'shared pool' : `process ${c.process}`;
    groups.set(key, [...(groups.get(key) ?? []), `${c.id} ${c.borrower ?? 'idle'}`]);
  }
  return [...groups].map(([k, v]) => `${k}: ${v.join(', ')}`).join(' · ');
}

/** The snapshot's PgBouncer part, or null when the scenario has no pooler. */
function poolerOf(snap: WorldSnapshot): PoolerSnapshot | null {
  return (snap.pooler as PoolerSnapshot | undefined) ?? null;
}

/** `PgBouncer (transaction mode): s1 → c2 (B) · s2 idle`: which client each server connection serves now. */
function poolerText(snap: WorldSnapshot, pooler: PoolerSnapshot): string {
  const servers = pooler.servers.map((x) => {
    if (x.client === null) return `${x.id} idle`;
    const worker = snap.pool.connections.find((c) => c.id === x.client)?.borrower;
    return `${x.id} → ${x.client}${worker ? ` (${worker})` : ''}`;
  });
  return `PgBouncer (${pooler.mode ?? 'none'} mode): ${servers.join(' · ')}${pooler.waiting.length > 0 ? ` · waiting: ${pooler.waiting.join(', ')}` : ''}`;
}

/** Props: the run, the cursor's event index (-1: before the first event) and time. */
export interface InspectorProps {
  readonly run: DerivedRun;
  readonly index: number;
  readonly cursorMs: number;
  /** Heading level text, e.g. "World at the cursor". */
  readonly title?: string;
}

/**
 * A message's state at the cursor, in words: visible, in flight with its consumer until its
 * visibility timeout passes (and how long that is from the cursor), or deleted.
 */
export function queueMessageState(m: QueueMessageSnapshot, cursorMs: number): string {
  if (m.state === 'deleted') return 'deleted';
  if (m.state === 'visible') return 'visible: the next ReceiveMessage gets it';
  const until = m.invisibleUntilMs;
  return `in flight with ${m.receivedBy ?? 'a consumer'}${until === null ? '' : ` until ${fmtSeconds(until)} (${fmtSeconds(Math.max(0, until - cursorMs))} more)`}`;
}

/** The lane state of `worker` after event `index`: that of its latest event with a state (none: undefined). */
function laneStateAt(events: DerivedRun['events'], index: number, worker: string): ReturnType<typeof laneStateOf> {
  for (let i = index; i >= 0; i--) {
    const e = events[i]!;
    if (e.actor === worker && e.state !== undefined) return laneStateOf(e);
  }
  return undefined;
}

/** The inspector panel. */
export function Inspector({ run, index, cursorMs, title = 'World at the cursor' }: InspectorProps) {
  const snap = index >= 0 ? run.snapshots[index] : undefined;
  const event = index >= 0 ? run.events[index] : undefined;
  const leaseKey = run.scenario.lease.key;
  const fenceKey = run.scenario.lease.fenceKey;
  const rowLocks = snap ? snap.locks.filter((l) => l.locktype === 'tuple' && l.granted) : [];
  // The lease keys wherever the lease lives: Redis, or etcd (lockService) with its revision and leases.
  const leaseKeys = snap ? leaseEntriesOf(snap) : [];
  const etcd = snap?.lockService as EtcdSnapshot | undefined;
  // The fencing source the run uses (mechanism.fenceSource), never a counter it does not touch.
  const fencing = snap ? fencingSourceAt(run, index) : null;
  return (
    <section className="panel inspector" aria-label="Inspector">
      <h2>{title} <span className="muted">{runTimeFormatter(run)(cursorMs)}{event ? ` · after ${event.id}` : ''}</span></h2>
      {!snap ? (
        <p className="muted">Before the first event: nothing has happened yet. Press → or Play.</p>
      ) : (
        <>
          <h3>Workers</h3>
          <TableBox label="Workers">
          <table className="grid" aria-label="Workers">
            <thead><tr><th scope="col">Worker</th><th scope="col">State</th><th scope="col">Believes</th></tr></thead>
            <tbody>
              {snap.workers.map((w) => {
                // What the trace says the worker is doing (polling an empty queue), as its lane says.
                // An admin script (no scenario worker) has finished once its last event is behind the cursor and left it not waiting.
                const scriptDone = !run.scenario.workers.some((x) => x.id === w.id) && w.state !== 'waiting' && run.events.findLastIndex((e) => e.actor === w.id) <= index;
                const state = scriptDone ? 'done' : w.state === 'working' && laneStateAt(run.events, index, w.id) === 'polling' ? 'polling' : w.state;
                return (
                <tr key={w.id} data-testid={`worker-${w.id}`}>
                  <th scope="row">{w.id}</th>
                  <td><span className={`state state-${state}`}>{LANE_STATE_TEXT[state]}</span></td>
                  <td>{w.id} {beliefsInWords(w.beliefs, leaseKey, heldLockWords(run.scenario, w.id))}</td>
                </tr>
                );
              })}
            </tbody>
          </table>
          </TableBox>

          {(run.scenario.mechanism.lock === 'lease' || leaseKeys.some((l) => l.key === leaseKey)) && (
            <>
              <h3>{etcd ? 'Lock service (etcd)' : 'Lease store'}</h3>
              <TableBox label="Lease keys">
              <table className="grid" aria-label="Lease keys">
                <thead><tr><th scope="col">Key</th><th scope="col">Value</th><th scope="col">Owner</th><th scope="col">Token</th><th scope="col">TTL left</th></tr></thead>
                <tbody>
                  {leaseKeys.filter((l) => etcd || l.key !== fenceKey).length === 0 && <tr><td colSpan={5}>{leaseKey} does not exist: the lease is free.</td></tr>}
                  {leaseKeys.filter((l) => etcd || l.key !== fenceKey).map((l) => {
                    const owner = snap.workers.find((w) => w.beliefs.ownerToken === l.value);
                    const left = l.expiresAtMs === null ? null : Math.max(0, l.expiresAtMs - cursorMs);
                    return (
                      <tr key={l.key} data-testid={`lease-${l.key}`}>
                        <th scope="row"><code>{l.key}</code></th>
                        <td><code>{l.value}</code></td>
                        <td>{owner ? owner.id : 'unknown'}</td>
                        <td>{owner?.beliefs.fencingToken ?? '—'}</td>
                        <td>{left === null ? 'no TTL' : fmtSeconds(left)}</td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
              </TableBox>
              {etcd && (
                <p className="small" data-testid="etcd-state">
                  Store revision <strong>{etcd.revision}</strong>
                  {etcd.keys.map((k) => ` · ${k.key} created at revision ${k.createRevision} with lease ${k.lease ?? 'none'}`).join('')}
                  {etcd.leases.length > 0 ? ` · leases: ${etcd.leases.map((l) => `${l.id} (${l.grantedTo}'s, ${fmtSeconds(Math.max(0, l.expiresAtMs - cursorMs))} left of ${fmtSeconds(l.ttlS * 1000)})`).join(', ')}` : ' · no lease'}
                </p>
              )}
            </>
          )}

          {fencing && (
            <p className="small" data-testid="fencing-source">
              Fencing tokens from <strong>{fencing.where}</strong>
              {fencing.source === 'redis-incr' && fencing.current !== null ? <> · <code>{fenceKey}</code> = {fencing.current}</> : null}
              {fencing.source === 'lock-service-revision' && fencing.current !== null ? ` · store revision ${fencing.current}` : ''}
              {` · last token issued: ${fencing.lastToken ?? 'none yet'}`}
              {fencing.unused !== null && <span className="muted"> · {fencing.unused}: not a source of this run&apos;s tokens (nothing increments it)</span>}
            </p>
          )}

          {usesDatabase(run.scenario) && (
            <>
          <h3>Locks <span className="muted">(pg_locks)</span></h3>
          {snap.pgLocks.length === 0 ? <p className="small muted">pg_locks is empty for these sessions: no transaction open, no lock held or awaited.</p> : (
            <TableBox label="Database locks (pg_locks)">
            <table className="grid pg-locks" aria-label="Database locks (pg_locks)">
              <thead><tr><th scope="col">locktype</th><th scope="col">object</th><th scope="col">session</th><th scope="col">mode</th><th scope="col">granted</th></tr></thead>
              <tbody>
                {snap.pgLocks.map((l, i) => (
                  <tr key={i} className={l.granted ? '' : 'waiting'}>
                    <td>{breakable(l.locktype)}</td>
                    <td>{pgLockObject(l)}</td>
                    <td>{l.sessionId}{borrowerText(snap, l.sessionId)}</td>
                    <td>{breakable(l.mode)}</td>
                    <td>{l.granted ? 't' : <>f <span className="muted">(waits)</span></>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            </TableBox>
          )}
          {rowLocks.length > 0 && (
            <>
              <h4 className="small">Row locks <span className="muted">(in the tuple header, not in pg_locks; the <code>pgrowlocks</code> extension shows them)</span></h4>
              <TableBox label="Row locks (tuple headers)">
              <table className="grid" aria-label="Row locks (tuple headers)">
                <thead><tr><th scope="col">row</th><th scope="col">locked by session</th></tr></thead>
                <tbody>
                  {rowLocks.map((l, i) => (
                    <tr key={i}><td>{l.objectDescription}</td><td>{l.sessionId}{borrowerText(snap, l.sessionId)}</td></tr>
                  ))}
                </tbody>
              </table>
              </TableBox>
            </>
          )}
            </>
          )}

          {snap.waitFor !== undefined && snap.waitFor.length > 0 && (() => {
            const g = waitForAtCursor(snap.waitFor, snap.pool);
            return (
              <>
                <h3>Who waits for whom <span className="muted">(wait-for graph)</span></h3>
                <WaitForGraph edges={g.edges} label={`Wait-for graph: ${g.edges.map((e) => `${e.from} waits for ${e.to}`).join('; ')}${g.cycle ? '; a cycle' : ''}`} />
                {g.deadlock && <p className="small" data-testid="wait-for-deadlock">A cycle inside the database: a deadlock. When the deadlock_timeout of one of these waits fires, PostgreSQL fails that statement with 40P01 and the others proceed.</p>}
                {g.cycle && !g.deadlock && <p className="small">A cycle only through requests queued ahead: PostgreSQL&apos;s deadlock check can reorder the queue.</p>}
              </>
            );
          })()}

          {Object.entries(snap.tables).filter(([name, rows]) => name !== 'jobs' || rows.length > 0).map(([name, rows]) => (
            <div key={name}>
              <h3>Table <code>{name}</code> <span className="muted">(committed rows)</span></h3>
              {rows.length === 0 ? <p className="small muted">No rows.</p> : (
                <TableBox label={`Table ${name}`}>
                <table className="grid" aria-label={`Table ${name}`}>
                  <thead><tr>{Object.keys(rows[0]!).map((c) => <th key={c} scope="col">{c}</th>)}</tr></thead>
                  <tbody>{rows.map((r, i) => <tr key={i}>{Object.values(r).map((v, j) => <td key={j}>{v === null ? 'NULL' : String(v)}</td>)}</tr>)}</tbody>
                </table>
                </TableBox>
              )}
            </div>
          ))}

          {Array.isArray(snap.queue) && run.scenario.queue?.kind === 'sqs' && (
            <>
              <h3>Queue <code>{run.scenario.queue.name}</code></h3>
              <TableBox label="Queue messages">
              <table className="grid" aria-label="Queue messages">
                <thead><tr><th scope="col">Message</th><th scope="col">Body</th><th scope="col">State</th><th scope="col">Deliveries</th></tr></thead>
                <tbody>
                  {(snap.queue as readonly QueueMessageSnapshot[]).map((m) => (
                    <tr key={m.messageId} data-testid={`queue-${m.messageId}`}>
                      <th scope="row"><code>{m.messageId}</code></th>
                      <td><code>{m.body}</code></td>
                      <td>{queueMessageState(m, cursorMs)}</td>
                      <td>{m.receiveCount}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              </TableBox>
            </>
          )}

          {usesDestination(run.scenario) && (
            <>
              <h3>Destination <code>{run.scenario.destination.target}</code></h3>
              <p className="small">
                {run.scenario.destination.checksFencing ? 'Checks fencing tokens' : 'Ignores fencing tokens'} · {run.scenario.destination.honoursIdempotencyKeys ? 'honours idempotency keys' : 'ignores idempotency keys'}
                {snap.destination.highestTokenAccepted !== null ? ` · highest token accepted: ${snap.destination.highestTokenAccepted}` : ''}
              </p>
              {snap.destination.writes.length === 0 ? <p className="small muted">No writes yet.</p> : (
                <TableBox label="Destination writes">
                <table className="grid" aria-label="Destination writes">
                  <thead><tr><th scope="col">#</th><th scope="col">Writer</th><th scope="col">Token</th><th scope="col">Status</th><th scope="col">Reply</th></tr></thead>
                  <tbody>
                    {snap.destination.writes.map((w) => (
                      <tr key={w.id} className={`write-${w.status}`} data-testid={`write-${w.id}`}>
                        <td>{w.id}</td>
                        <td>{w.worker}</td>
                        <td>{w.token ?? '—'}</td>
                        <td>{w.status === 'rejected' ? '✕ rejected (stale)' : w.status === 'deduplicated' ? '= deduplicated' : w.status === 'conflict' ? '⟳ 409: key in flight' : w.status === 'inFlight' ? '… in flight' : w.status === 'aborted' ? 'aborted' : '✓ accepted'}{w.performed ? ', performed' : ''}</td>
                        <td className="small">{w.reply}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
                </TableBox>
              )}
            </>
          )}

          {usesDatabase(run.scenario) && (
            <>
              <h3>{run.scenario.processes === undefined ? 'Connection pool' : 'Connection pools (one per process)'}</h3>
              <p className="small" data-testid="pool-state">
                {snap.pool.connections.length === 0 ? 'No connections opened yet.' : poolText(snap)}
                {snap.pool.waiting.length > 0 ? ` · waiting: ${snap.pool.waiting.join(', ')}` : ''}
              </p>
              {poolerOf(snap) !== null && <p className="small" data-testid="pooler-routing">{poolerText(snap, poolerOf(snap)!)}</p>}
            </>
          )}
        </>
      )}
    </section>
  );
}
