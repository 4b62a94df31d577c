/**
 * A validation problem in the user's words: the field's name as the panels label it ("Lease TTL",
 * not `lease.ttlMs`), the rule with its unit ("must be at least 1 ms", not "must be ≥ 1"), and,
 * where the real system refuses the same value, why — in that system's own words (Redis refuses
 * `SET … PX 0` with "ERR invalid expire time in 'set' command"). The rules themselves stay the
 * simulation core's (`validateScenario`); this only words them. Issue 9, "one vocabulary everywhere".
 */
import { INVARIANT_TEXT, faultKinds } from '../../sim';

/** The user's name of a field, by its generic path (indices written `[]`). */
const FIELD_LABELS: Readonly<Record<string, string>> = {
  title: 'Title', description: 'Description', seed: 'Seed', horizonMs: 'Horizon', lesson: 'Lesson', version: 'Scenario version',
  'job.kind': 'Job kind', 'job.table': 'Table', 'job.key': 'Business key', 'job.values': 'Columns', 'job.rowId': 'Row id', 'job.jobKey': 'Job key',
  'job.accountId': 'Account id', 'job.initialBalance': 'Initial balance', 'job.itemId': 'Item id', 'job.initialStock': 'Initial stock', 'job.quantity': 'Quantity per worker',
  workers: 'Workers', 'workers[].id': 'Worker id', 'workers[].startMs': 'Starts at', 'workers[].amount': 'Amount', 'workers[].process': 'Runs in process',
  'workers[].steps': 'Steps', 'workers[].steps[].do': 'Step', 'workers[].steps[].ms': 'Step duration', 'workers[].steps[].isolation': 'Step isolation level',
  'workers[].steps[].advisoryKey': 'Step advisory lock key', 'workers[].steps[].helper': 'Step in a helper',
  mechanism: 'Mechanism', 'mechanism.lock': 'Lock', 'mechanism.advisoryKey': 'Advisory lock key', 'mechanism.rowLock': 'Row lock on read', 'mechanism.onConflict': 'On a unique conflict',
  'mechanism.release': 'Lease release', 'mechanism.renewal': 'Lease renewal', 'mechanism.onError': 'On a job error', 'mechanism.acquireTimeoutMs': 'Give up acquiring after',
  'mechanism.fenceSource': 'Fencing token from', 'mechanism.fencing': 'Fencing token', 'mechanism.idempotencyKey': 'Idempotency key', 'mechanism.jobRecord': 'Job record check',
  lockService: 'The lease lives in', 'lockService.kind': 'The lease lives in',
  'client.onBusy': 'When someone else holds the lock', 'client.retries': 'Retries after the first try', 'client.renewFrom': 'Renewal timer starts', 'client.renewMarginMs': 'Renew this much early', 'client.checkRelease': 'Checked release',
  'lease.key': 'Lease key', 'lease.fenceKey': 'Fencing counter key', 'lease.fenceStart': 'Counter start', 'lease.ttlMs': 'Lease TTL', 'lease.retryEveryMs': 'Retry every',
  'lease.renewEveryMs': 'Renew every', 'lease.replicationLagMs': 'Replication lag',
  'database.poolSize': 'Connection pool size', 'database.deadlockTimeoutMs': 'deadlock_timeout', 'database.statementTimeoutMs': 'Statement timeout',
  'database.idleInTransactionSessionTimeoutMs': 'Idle-in-transaction timeout', 'database.isolation': 'Isolation level', 'database.serializationRetries': 'Retries on serialization failure',
  'database.pooler': 'Pooler', 'database.pooler.mode': 'Pooler', 'database.pooler.serverConnections': 'PgBouncer server connections',
  'destination.kind': 'Destination', 'destination.target': 'Target',
  processes: 'Processes', 'processes[].id': 'Process name', 'processes[].poolSize': 'Its pool size', 'processes[].acquireTimeoutMs': 'Give up waiting for a connection after',
  queue: 'Queue', 'queue.kind': 'The workers take their job from', 'queue.name': 'Queue name', 'queue.visibilityTimeoutMs': 'Visibility timeout', 'queue.pollEveryMs': 'Ask again after an empty receive',
  'queue.maxEmptyReceives': 'Empty receives before stopping', 'queue.table': 'Job table', 'queue.jobId': 'Job row id', 'queue.stalledCheckEveryMs': 'Stalled-job checker period', 'queue.retryBackoffMs': 'Retry after a job error',
  invariants: 'Invariants', 'invariants[].maxWaitMs': 'Longest allowed wait', 'invariants[].withinMs': 'Completes within',
  faults: 'Faults', 'faults[].kind': 'Fault kind', 'faults[].worker': 'Fault worker', 'faults[].atMs': 'Fault time', 'faults[].step': 'Fault step', 'faults[].phase': 'Fault phase',
  'faults[].pauseMs': 'Pause for', 'faults[].restartAfterMs': 'Restart after', 'faults[].durationMs': 'Fault duration', 'faults[].jumpMs': 'Jump by',
};

/** `workers[0].steps[2].ms` → `workers[].steps[].ms`. */
const generic = (path: string) => path.replace(/\[\d+\]/g, '[]');

/** 1-based numbers of a path's indices ("worker 1, step 3"), for a field that repeats. */
function ordinals(path: string): string {
  const names: Record<string, string> = { workers: 'worker', steps: 'step', faults: 'fault', processes: 'process', invariants: 'invariant' };
  const parts = [...path.matchAll(/([A-Za-z]+)\[(\d+)\]/g)].map((m) => `${names[m[1]!] ?? m[1]} ${Number(m[2]) + 1}`);
  return parts.length ? ` (${parts.join(', ')})` : '';
}

/** `pauseMs` → "pause", `maxEmptyReceives` → "max empty receives" (a field no table names). */
const decamel = (name: string) => name.replace(/Ms$/, '').replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();

/** The user's name of the field at `path` ("Lease TTL", "Step duration (worker 1, step 3)"). */
export function fieldWords(path: string): string {
  if (path === '(root)' || path === '') return 'The scenario';
  const label = FIELD_LABELS[generic(path)] ?? decamel(path.split('.').pop()!.replace(/\[\d+\]/g, ''));
  const named = label.charAt(0).toUpperCase() + label.slice(1);
  return `${named}${ordinals(path)}`;
}

/** Whether `path` holds a time in milliseconds (its rule's numbers are then ms). */
const isMs = (path: string) => /Ms$/.test(path) || /\.ms$/.test(path);

/**
 * The validator's rule in words: field paths inside it become field names, a fault kind its
 * label, `≥`/`≤` become "at least"/"at most" with the unit.
 */
export function ruleWords(path: string, message: string): string {
  const unit = isMs(path) ? ' ms' : '';
  let m = message
    .replace(/lockService "etcd"/g, 'the lease in etcd')
    .replace(/^must be ≥ (-?[\d.]+)$/, `must be at least $1${unit}`)
    .replace(/^must be ≤ (-?[\d.]+)$/, `must be at most $1${unit}`)
    .replace(/^must be at least 1 character\(s\)$/, 'must not be empty')
    // A bound that is another field ("must be ≤ horizonMs (90000)"): its value with its unit, the comparison in words.
    .replace(/\b([a-z][\w.[\]]*Ms) \((-?[\d.]+)\)/g, '$1 ($2 ms)')
    .replace(/^must be ≤ (?=[a-z])/, 'must be at most ')
    .replace(/^must be ≥ (?=[a-z])/, 'must be at least ')
    .replace(/^must be < (?=[a-z])/, 'must be less than ')
    .replace(/^must be > (?=[a-z])/, 'must be more than ');
  // Paths named inside the rule ("must be < lease.renewEveryMs (3000)", "with lockService \"etcd\"").
  m = m.replace(/\b[a-z][A-Za-z0-9]*(?:\.[a-z][A-Za-z0-9]*|\[\d+\])+/g, (p) => (FIELD_LABELS[generic(p)] || /[A-Z]|\[/.test(p) ? fieldWords(p) : p));
  for (const [k, text] of Object.entries(INVARIANT_TEXT)) m = m.replace(new RegExp(`"${k}"|\\b${k}\\b`, 'g'), `"${text}"`);
  for (const k of faultKinds()) m = m.replace(new RegExp(`"${k.kind}"|\\b${k.kind}\\b`, 'g'), `"${k.label}"`);
  // A bare field name ("horizonMs (80000)", "with lockService").
  m = m.replace(/\b([a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+)\b/g, (w) => (FIELD_LABELS[w] ? fieldWords(w) : w));
  return m;
}

/**
 * Why the real system refuses what the rule refuses, in its own words, or null when the rule is
 * only the model's. Keyed by generic path and the rule's kind.
 */
export function realWhy(path: string, message: string): string | null {
  const g = generic(path);
  const belowOne = /^must be ≥ 1$/.test(message);
  const negative = /^must be ≥ 0$/.test(message);
  if (g === 'lease.ttlMs' && belowOne) return "Redis refuses SET … PX 0 (or a negative TTL): \"ERR invalid expire time in 'set' command\".";
  if (g === 'lease.renewEveryMs' && belowOne) return 'a renewal timer of 0 ms would fire again at once, without end.';
  if (g === 'lease.retryEveryMs' && belowOne) return 'a retry every 0 ms would send SET NX again without end.';
  if (g === 'database.poolSize' && belowOne) return 'a pool of no connections can hand none out (node-postgres and HikariCP need a pool size of at least 1).';
  if (g === 'processes[].poolSize' && belowOne) return 'a pool of no connections can hand none out (node-postgres and HikariCP need a pool size of at least 1).';
  if (g === 'database.statementTimeoutMs' && belowOne) return 'in PostgreSQL, statement_timeout = 0 turns the timeout off: leave the field empty for that.';
  if (g === 'database.idleInTransactionSessionTimeoutMs' && belowOne) return 'in PostgreSQL, idle_in_transaction_session_timeout = 0 turns the timeout off: leave the field empty for that.';
  if (g === 'database.deadlockTimeoutMs' && belowOne) return 'PostgreSQL refuses it: "0 ms is outside the valid range for parameter "deadlock_timeout" (1 .. 2147483647)".';
  if (g === 'mechanism.acquireTimeoutMs' && belowOne) return 'in PostgreSQL, lock_timeout = 0 waits for ever: leave the field empty for that.';
  if (g === 'faults[].pauseMs' && belowOne) return 'a pause of 0 ms is no pause.';
  if (g === 'horizonMs' && belowOne) return 'the run needs time for anything to happen.';
  if (g === 'seed' && negative) return 'the seed is a whole number from 0 to 2147483647.';
  if ((g === 'workers[].steps[].ms' || g === 'workers[].startMs') && negative) return 'a time cannot run backwards.';
  if (g === 'lease.replicationLagMs' && negative) return 'a replica cannot be ahead of its primary.';
  return null;
}

/** One problem as the form shows it next to its field: "Lease TTL: must be at least 1 ms." and, when there is one, the real system's why. */
export function problemWords(path: string, message: string): { readonly text: string; readonly why: string | null } {
  const rule = ruleWords(path, message);
  return { text: `${fieldWords(path)}: ${rule}${/[.!?]$/.test(rule) ? '' : '.'}`, why: realWhy(path, message) };
}
