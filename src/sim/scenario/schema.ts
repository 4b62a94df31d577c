/**
 * The scenario format, version 2: a scenario is plain, versioned JSON data (seed + parameters +
 * workers' job steps + faults + invariants). Version 2 adds `client` (how the lock client library
 * behaves), the `set-px` and `pexpire` renewals, the `renewalStall` fault, the database's
 * `statementTimeoutMs`, `idleInTransactionSessionTimeoutMs`, `isolation` and `serializationRetries`
 * (with a `begin` step's `isolation`), the fencing token's source (`mechanism.fenceSource`), the
 * `fencedRow` job, `database.pooler`, an optional `queue` (SQS-like or a table) with its steps and
 * invariants, `processes` (each with its own connection pool) with `workers[].process`, and a SQL
 * step's `helper` (it runs on a second connection from the same pool); version-1 files and links migrate
 * (src/sim/scenario/migrate.ts) with defaults that reproduce version 1 exactly. Validated with zod; every bound is a limit that keeps
 * one run small enough that no input can hang a browser tab.
 *
 * Units: every duration is an integer number of virtual milliseconds and its name ends in `Ms`.
 */
import { z } from 'zod';
import { LIMITS, durationMs, positiveMs, identifier } from './primitives';
import { faultKinds, onFaultKindsChange } from '../faults/registry';
import type { BuiltinFault } from '../faults/kinds';

export { LIMITS };

const name = z.string().min(1).max(120);
const sqlInt = z.int().min(-2_147_483_648).max(2_147_483_647);
const sqlValue = z.union([sqlInt, z.string().max(200), z.null()]);
const rowSchema = z.record(z.string().regex(/^[a-z_][a-z0-9_]{0,30}$/, { error: 'must be a lower-case SQL column name' }), sqlValue);

/**
 * Version 2, on a step that runs SQL (`check`, `read`, `effect` of a database job, `enqueue`,
 * `record`): the step calls a helper that takes a second connection from the worker's own pool
 * (its process's, or the shared one) while the worker keeps its connection — and its open
 * transaction — and waits for the helper to return. The helper's statements run in autocommit on
 * that second connection (its own transaction, like Spring's `REQUIRES_NEW` or a helper that calls
 * `pool.connect()` again); it gives the connection back when the step ends. When every connection
 * is taken (by callers that each wait for a helper) the helper waits for ever, or until the pool's
 * acquire timeout: the pool self-deadlock. When the helper's statement waits for a lock the
 * caller's own transaction holds, PostgreSQL sees one session waiting for another that is idle in
 * its transaction — no cycle, no 40P01 — and both wait until a timeout. Optional; absent = the
 * step runs on the worker's own connection (as does `false`). Source: ../shared/semantics.md, "PostgreSQL advisory
 * locks" (a cycle that passes through application code is invisible to PostgreSQL and hangs).
 */
const helperFlag = z.boolean().optional();

/** One step of a worker's job. What each step does depends on the job kind and the mechanism. */
export const stepSchema = z.discriminatedUnion('do', [
  /** Borrow a connection from the pool (waits when every connection is lent out). */
  z.strictObject({ do: z.literal('connect') }),
  /** Return the connection to the pool (session state, including session advisory locks, stays on it). */
  z.strictObject({ do: z.literal('disconnect') }),
  /** `BEGIN`; `isolation` (optional) opens this transaction at that level, overriding `database.isolation`. */
  z.strictObject({ do: z.literal('begin'), isolation: z.enum(['read committed', 'repeatable read', 'serializable']).optional() }),
  z.strictObject({ do: z.literal('commit') }),
  /**
   * Take the coordination the mechanism names (advisory lock, lease, or nothing). `advisoryKey`
   * (optional, only with `mechanism.lock = advisory-xact`) takes that key instead of
   * `mechanism.advisoryKey`, so that a job can take several transaction-scoped locks (all released
   * at COMMIT or ROLLBACK) — and two jobs can take them in opposite orders.
   */
  z.strictObject({ do: z.literal('acquire'), advisoryKey: sqlInt.optional() }),
  /** Give it back (unlock, `DEL` or compare-and-delete). */
  z.strictObject({ do: z.literal('release') }),
  /** Look for the finished result (the business row, or the durable job record); if found, the job ends having loaded it. */
  z.strictObject({ do: z.literal('check'), helper: helperFlag }),
  /** Read the value a read-modify-write job changes (with `FOR UPDATE` when the mechanism says so). */
  z.strictObject({ do: z.literal('read'), helper: helperFlag }),
  /** Local computation inside the job, `ms` long. */
  z.strictObject({ do: z.literal('work'), ms: durationMs }),
  /** The business effect: the INSERT/UPDATE, the file upload or the external API call; `ms` is how long it takes. */
  z.strictObject({ do: z.literal('effect'), ms: durationMs, helper: helperFlag }),
  /** Write a durable job record ('pending') before the effect. */
  z.strictObject({ do: z.literal('enqueue'), helper: helperFlag }),
  /** Write the completion record ('done'). */
  z.strictObject({ do: z.literal('record'), helper: helperFlag }),
  /**
   * Take the next job from the scenario's `queue` (version 2): `ReceiveMessage` with the queue's
   * visibility timeout (an empty reply is polled again every `queue.pollEveryMs`, up to
   * `queue.maxEmptyReceives` times, then the worker stops: no job for it), or for a table queue
   * `SELECT id FROM <table> WHERE status = 'pending'` with `mechanism.rowLock` (e.g. `FOR UPDATE
   * SKIP LOCKED`; no row: no job for it).
   */
  z.strictObject({ do: z.literal('receive') }),
  /** Table queue: mark the claimed row `UPDATE <table> SET status = 'running', claimed_by = '<worker>' WHERE id = <id>` (in the claim's transaction or another). */
  z.strictObject({ do: z.literal('markClaimed') }),
  /** SQS-like queue: `ChangeMessageVisibility` with the queue's visibility timeout again, counted from now (extending it while working). */
  z.strictObject({ do: z.literal('extendVisibility') }),
  /** Acknowledge the job: `DeleteMessage` with the latest receipt handle, or for a table queue `UPDATE <table> SET status = 'done' WHERE id = <id>`. */
  z.strictObject({ do: z.literal('ack') }),
]);

/** What the job is about (its business invariant lives here). */
export const jobSchema = z.discriminatedUnion('kind', [
  /** Create one row per business key (an invoice per order). */
  z.strictObject({
    kind: z.literal('insertOnce'),
    table: z.string().regex(/^[a-z_][a-z0-9_]{0,30}$/),
    /** The business key columns and values, e.g. `{ "order_id": 42 }`. */
    key: rowSchema,
    /** Other columns of the row, e.g. `{ "amount": 100 }`. */
    values: rowSchema,
  }),
  /** Read-modify-write a balance: each worker debits its `amount`. */
  z.strictObject({ kind: z.literal('debit'), accountId: sqlInt, initialBalance: sqlInt }),
  /** Reserve `quantity` of an item with `initialStock` left. */
  z.strictObject({ kind: z.literal('reserve'), itemId: sqlInt, initialStock: z.int().min(0).max(1_000_000), quantity: z.int().min(1).max(1_000) }),
  /** A job whose effect goes to the destination (file store or external API). */
  z.strictObject({ kind: z.literal('external'), jobKey: z.string().min(1).max(100) }),
  /**
   * Since version 2: the database is the fenced resource. The effect updates one row of `table`
   * (columns `id`, `fence` and those of `values`; the row starts with `fence = 0`): `UPDATE table
   * SET …values, fence = $token WHERE id = $rowId`, and with `destination.checksFencing` also
   * `AND fence < $token` — 0 rows updated means a stale holder (semantics.md, "Fencing beyond a
   * Redis counter"). `{worker}` in a text value is replaced by the worker id.
   */
  z.strictObject({
    kind: z.literal('fencedRow'),
    table: z.string().regex(/^[a-z_][a-z0-9_]{0,30}$/, { error: 'must be a lower-case SQL table name' }),
    rowId: sqlInt,
    /** The columns the effect writes, e.g. `{ "body": "report by {worker}" }` (not `id` or `fence`). */
    values: rowSchema,
  }),
]);

/** How the workers coordinate. Each field is one switch of the mechanism panel. */
export const mechanismSchema = z.strictObject({
  /** Coordination taken by the `acquire` step. */
  lock: z.enum(['none', 'advisory-xact', 'advisory-session', 'lease']),
  /** Key of the advisory lock (one bigint). */
  advisoryKey: sqlInt,
  /** Row lock taken by the `read` step. */
  rowLock: z.enum(['none', 'forUpdate', 'forUpdateNowait', 'forUpdateSkipLocked']),
  /** A UNIQUE constraint on the business key of an insertOnce job. */
  uniqueKey: z.boolean(),
  /** `CHECK (stock >= 0)` on a reserve job's table. */
  checkConstraint: z.boolean(),
  /** insertOnce: plain INSERT (on 23505: ROLLBACK, then load the winner's row) or `ON CONFLICT DO NOTHING RETURNING` (on 0 rows: load it). */
  onConflict: z.enum(['error', 'doNothing']),
  /** How a lease is released: plain `DEL` or the compare-and-delete script. */
  release: z.enum(['del', 'compare-and-delete']),
  /**
   * Lease renewal: none, the compare-and-extend script, a plain `SET key token` (which discards
   * the TTL: the lease never expires), or since version 2: `set-px`, `SET key token PX ttl` as
   * clients that "extend" by setting again do (it re-acquires a key that expired — after a gap in
   * which someone else may have worked — and overwrites a successor's); `pexpire`, a plain
   * `PEXPIRE key ttl`, which checks no owner: it extends whoever holds the key, a successor
   * included (Redis docs, SET and PEXPIRE: 1 if the timeout was set, 0 if the key does not exist).
   */
  renewal: z.enum(['none', 'compare-and-extend', 'set', 'set-px', 'pexpire']),
  /** Stop before the effect or the record once a renewal has failed. */
  stopOnRenewFailure: z.boolean(),
  /** Take a fencing token with the lease (from `fenceSource`) and send it with the effect. */
  fencing: z.boolean(),
  /**
   * Where the fencing token comes from (version 2; optional, absent = `redis-incr`, version 1's):
   * `redis-incr`, `INCR` of `lease.fenceKey` in the same Redis as the lock — lost with it when a
   * failover promotes a replica that had not received them; `db-sequence`, `SELECT
   * nextval('fence_seq')` in PostgreSQL (durable, not transactional: a value is never handed out
   * twice), the sequence starting at `lease.fenceStart + 1` (semantics.md, "Fencing beyond a
   * Redis counter").
   */
  fenceSource: z.enum(['redis-incr', 'db-sequence']).optional(),
  /** Send an idempotency key (the job key) with the effect. */
  idempotencyKey: z.boolean(),
  /** Check the durable job record first and skip the work when it says done. */
  jobRecord: z.boolean(),
  /** On a job error: return the connection as is, unlock in `finally`, or discard the connection. */
  onError: z.enum(['return', 'unlockInFinally', 'discardConnection']),
  /**
   * Give up acquiring after this many ms (optional; absent or null = wait for ever). For an
   * advisory lock this is PostgreSQL's `lock_timeout` (the wait is cancelled with 55P03); for a
   * lease, the worker stops retrying `SET NX`. Either way the job fails and its error path runs.
   */
  acquireTimeoutMs: positiveMs.nullable().optional(),
  /** The error path releases the lease even when this worker never got it (a `finally { DEL }` bug). Optional; default false. */
  releaseInFinally: z.boolean().optional(),
});

/** Lease store settings (Redis semantics). */
export const leaseSchema = z.strictObject({
  key: z.string().min(1).max(100),
  /** Counter key for fencing tokens (`INCR`). */
  fenceKey: z.string().min(1).max(100),
  /** Value of the fencing counter before the run: the first token is `fenceStart + 1`. */
  fenceStart: z.int().min(0).max(1_000_000_000),
  ttlMs: positiveMs,
  /** How long a worker waits between `SET NX` attempts, and before retrying a request the destination refused with 409 because its idempotency key was still in flight. */
  retryEveryMs: positiveMs,
  /** Renewal period when the mechanism renews. */
  renewEveryMs: positiveMs,
  /** How far the replica lags behind the primary (used by the failover fault). */
  replicationLagMs: durationMs,
});

/**
 * How the lock client library behaves (version 2; every default reproduces version 1). Sources:
 * PostgreSQL "Advisory Lock Functions" (`pg_try_advisory_lock` never waits: `t` or `f`;
 * `pg_advisory_unlock` of a lock not held: `f` + WARNING); Redis "Distributed Locks with Redis"
 * (a single `SET NX`, retries, the compare-and-delete that replies 0 when the key is not ours).
 */
export const clientSchema = z.strictObject({
  /**
   * When someone else holds the lock: `wait` (version 1: `pg_advisory_lock` waits; the lease is
   * retried with `SET NX` every `lease.retryEveryMs` until `mechanism.acquireTimeoutMs`), `skip`
   * (try once — `pg_try_advisory_lock` or one `SET NX` — and skip the job without failing it), or
   * `retry` (try `1 + retries` times, `lease.retryEveryMs` apart, then fail the job).
   */
  onBusy: z.enum(['wait', 'skip', 'retry']),
  /** With `onBusy: 'retry'`: how many more tries after the first (0 … 1,000). */
  retries: z.int().min(0).max(1_000),
  /**
   * The client checks the release's reply and fails the job when it says the lock was not held:
   * `pg_advisory_unlock` → `f`, the compare-and-delete (or `DEL`) → `(integer) 0`.
   */
  checkRelease: z.boolean(),
  /** The renewal timer counts from the grant (version 1) or from the first acquire attempt. */
  renewFrom: z.enum(['grant', 'firstAttempt']),
  /** Each renewal runs this much before `lease.renewEveryMs` is up (a safety margin; must be < renewEveryMs). */
  renewMarginMs: durationMs,
});

/** The client of version 1: wait for the lock, ignore the release's reply, renew from the grant, no margin. */
export const DEFAULT_CLIENT: z.infer<typeof clientSchema> = Object.freeze({ onBusy: 'wait', retries: 0, checkRelease: false, renewFrom: 'grant', renewMarginMs: 0 });

/** Whole seconds from 0 to 12 h, in ms: what SQS accepts as a `VisibilityTimeout`. */
const visibilityMs = z.int().min(0).max(43_200_000).refine((ms) => ms % 1000 === 0, { error: 'must be whole seconds (a multiple of 1000): SQS takes VisibilityTimeout in seconds' });

/**
 * The queue the workers take their job from (version 2, optional). Sources: the SQS API reference
 * (ReceiveMessage, DeleteMessage, ChangeMessageVisibility), BullMQ "Stalled jobs", PostgreSQL
 * SELECT "The Locking Clause" (SKIP LOCKED); `../shared/semantics.md` "Queues and at-least-once delivery".
 */
export const queueSchema = z.discriminatedUnion('kind', [
  /** An SQS-like queue holding one message whose body is the job key (`job.jobKey`). */
  z.strictObject({
    kind: z.literal('sqs'),
    /** Queue name (`QueueUrl`). */
    name: z.string().regex(/^[A-Za-z0-9_-]{1,80}$/, { error: 'must be 1 to 80 letters, digits, - or _ (an SQS queue name)' }),
    /** How long a received message stays invisible before another consumer can receive it. */
    visibilityTimeoutMs: visibilityMs,
    /** How long a consumer waits before asking again after an empty receive. */
    pollEveryMs: positiveMs,
    /** After this many empty receives the consumer stops (no job for it). */
    maxEmptyReceives: z.int().min(1).max(1_000),
    /** A stalled-job checker (BullMQ) runs every this many ms: a job whose timeout passed returns to the queue only then. Absent or null: SQS, visible again at the timeout. */
    stalledCheckEveryMs: positiveMs.nullable().optional(),
    /** On a job error, the consumer hands the message back after this backoff, doubled per earlier delivery (`ChangeMessageVisibility` to backoff × 2^(receiveCount − 1), at most 12 h). Absent or null: it waits out the visibility timeout. */
    retryBackoffMs: visibilityMs.nullable().optional(),
  }),
  /** A table of job rows (`id`, `status`, `claimed_by`) with one pending row, claimed with SELECT … FOR UPDATE [SKIP LOCKED]. */
  z.strictObject({
    kind: z.literal('table'),
    table: z.string().regex(/^[a-z_][a-z0-9_]{0,30}$/, { error: 'must be a lower-case SQL table name' }),
    /** The job row's id. */
    jobId: sqlInt,
  }),
]);

export const databaseSchema = z.strictObject({
  /** Connections in the application's pool. */
  poolSize: z.int().min(1).max(64),
  /**
   * PostgreSQL's `deadlock_timeout` in virtual ms (optional; absent = 1000, the server's default):
   * a statement that has waited this long for a lock runs the deadlock check once; if its wait is
   * on a cycle inside the database it fails with 40P01 and its transaction is aborted (PostgreSQL
   * docs, runtime-config-locks "deadlock_timeout"; explicit-locking "Deadlocks").
   */
  deadlockTimeoutMs: positiveMs.optional(),
  /**
   * PostgreSQL's `statement_timeout` in virtual ms (optional; absent = 0, off): a statement still
   * running — in the model, still waiting for a lock — this long after it started is cancelled with
   * ERROR 57014 `canceling statement due to statement timeout`; inside a transaction block the
   * transaction is then aborted (25P02 until ROLLBACK). Session-level advisory locks stay held.
   * Source: PostgreSQL docs, runtime-config-client "statement_timeout"; ../shared/semantics.md.
   */
  statementTimeoutMs: positiveMs.optional(),
  /**
   * PostgreSQL's `idle_in_transaction_session_timeout` in virtual ms (optional; absent = off): a
   * session idle inside an open transaction this long is ended by the server (FATAL 25P03
   * `terminating connection due to idle-in-transaction timeout`): the transaction rolls back, every
   * lock of the session — session-level advisory locks included — is released, and the client finds
   * its connection closed at its next statement. Source: runtime-config-client; checked on PostgreSQL 15.
   */
  idleInTransactionSessionTimeoutMs: positiveMs.optional(),
  /**
   * The isolation level of every transaction a worker opens with `begin` (`BEGIN ISOLATION LEVEL …`;
   * optional; absent = `read committed`, PostgreSQL's default). A `begin` step's own `isolation`
   * overrides it. Source: PostgreSQL docs, "Transaction Isolation".
   */
  isolation: z.enum(['read committed', 'repeatable read', 'serializable']).optional(),
  /**
   * The application framework's retry policy (optional; absent = no retry): a transaction that fails
   * with 40001 (serialization failure) is rolled back and run again from its `begin` step, up to this
   * many more times — every step inside it again, a call to the destination included.
   */
  serializationRetries: z.int().min(1).max(10).optional(),
  /**
   * A connection pooler (PgBouncer) between the application's pool and PostgreSQL (version 2;
   * optional, absent = none: each pooled connection is its own database session). `mode`:
   * PgBouncer's `pool_mode` — `session` (a client connection keeps one server connection until it
   * closes; as with no pooler, and a client that dies gets `DISCARD ALL` on its server connection)
   * or `transaction` (a server connection is assigned for one transaction and returned at
   * COMMIT/ROLLBACK; a statement outside a transaction gets any idle one, and session state — a
   * session advisory lock — stays with the server connection). `serverConnections`: PgBouncer's
   * `default_pool_size`, the server connections (backends) it opens to PostgreSQL; a client waits
   * (FIFO) when every one is in use. Source: ../shared/semantics.md, "Connection poolers (PgBouncer)".
   */
  pooler: z.strictObject({ mode: z.enum(['session', 'transaction']), serverConnections: z.int().min(1).max(64) }).optional(),
});

/** PgBouncer's pool modes as the scenario names them. */
export type PoolerMode = 'session' | 'transaction';

/** `deadlock_timeout` when the scenario does not set one: PostgreSQL's default, 1 s. */
export const DEFAULT_DEADLOCK_TIMEOUT_MS = 1000;

export const destinationSchema = z.strictObject({
  kind: z.enum(['file', 'api']),
  /** File path or API endpoint, e.g. `exports/2026-11-30.csv`, `POST /v1/charges`. */
  target: z.string().min(1).max(200),
  /** Rejects a fencing token lower than the highest it accepted. */
  checksFencing: z.boolean(),
  /** Deduplicates repeated idempotency keys (returns the first result, performs nothing). */
  honoursIdempotencyKeys: z.boolean(),
});

/**
 * An application process with its own connection pool (version 2): node-postgres's `Pool`,
 * HikariCP, a Rails or Django process's pool. Its workers (threads, requests, async tasks: the
 * workers that name it in `process`) borrow only from this pool — never from another process's —
 * and wait in its FIFO queue when all `poolSize` connections are lent out. The connections get ids
 * `c1`, `c2`, … across all pools, in the order of `processes` (the shared pool of
 * `database.poolSize`, for workers that name no process, comes after them).
 */
export const processSchema = z.strictObject({
  /** The process's name, as the narration says it (`web-1`). */
  id: identifier,
  /** Connections in its pool (node-postgres `max`, HikariCP `maximumPoolSize`), opened at once. */
  poolSize: z.int().min(1).max(64),
  /**
   * How long a borrower waits for a free connection before the pool gives up with an error
   * (node-postgres `connectionTimeoutMillis`: `timeout exceeded when trying to connect`; HikariCP
   * `connectionTimeout`), after which the job fails and takes its error path. A client-side timer:
   * a paused process's fires when it resumes. Optional; absent = wait for ever (node-postgres's default).
   */
  acquireTimeoutMs: positiveMs.optional(),
});

export const workerSchema = z.strictObject({
  id: identifier,
  /** When the worker starts its job. */
  startMs: durationMs,
  /** Version 2: the process (`processes[].id`) whose pool this worker borrows from. Optional; absent = the shared pool of `database.poolSize`. */
  process: identifier.optional(),
  /** debit jobs: how much this worker debits. */
  amount: sqlInt.optional(),
  steps: z.array(stepSchema).min(1).max(LIMITS.maxStepsPerWorker),
});

/**
 * Builds the fault schema from the fault registry (src/sim/faults/registry.ts): one variant per
 * registered kind, discriminated by `kind`. Each kind's schema, application, description, lane
 * and generator live in one registry entry (the built-in kinds: src/sim/faults/kinds.ts).
 */
function buildFaultSchema(): z.ZodType<Fault> {
  const options = faultKinds().map((k) => k.schema) as unknown as [z.core.$ZodTypeDiscriminable, ...z.core.$ZodTypeDiscriminable[]];
  return z.discriminatedUnion('kind', options) as unknown as z.ZodType<Fault>;
}

/**
 * The fault kinds: plain data, placed at a virtual time or at a worker's step. Rebuilt when a
 * kind is registered (an ES module live binding: read it through the import, do not copy it).
 */
export let faultSchema = buildFaultSchema();

/** What must never happen. Checkers in src/sim/invariants see every event. */
export const invariantSchema = z.discriminatedUnion('kind', [
  /** insertOnce: at most one committed row per business key. */
  z.strictObject({ kind: z.literal('uniqueBusinessKey') }),
  /** Destination: no two accepted writes to one target in flight at once. */
  z.strictObject({ kind: z.literal('noOverlappingWrites') }),
  /**
   * The fenced resource (the destination, or a `fencedRow` job's row): never accept a fencing
   * token lower than one already accepted, nor another holder's write with the same token.
   */
  z.strictObject({ kind: z.literal('noStaleTokenAccepted') }),
  /** Destination: the external effect happens at most once per job key; `harmless` reports duplicates as redundant. */
  z.strictObject({ kind: z.literal('effectOnce'), harmless: z.boolean() }),
  /** debit: the final balance equals the initial balance minus every committed debit. */
  z.strictObject({ kind: z.literal('noLostUpdate') }),
  /** reserve: never reserve more than the stock (committed stock never below 0). */
  z.strictObject({ kind: z.literal('noOversell') }),
  /**
   * No two workers inside the critical section at once, judged on what they do: running one of
   * their job's protected steps (between `acquire` and `release`; see `protectedSteps` in
   * src/sim/invariants/coordination.ts), whatever the mechanism — not on what they believe.
   */
  z.strictObject({ kind: z.literal('mutualExclusion') }),
  /** No two live workers believe they own the lease at the same time. */
  z.strictObject({ kind: z.literal('singleLeaseOwner') }),
  /** No worker waits longer than maxWaitMs for a lock or a connection (a waiter still waiting at the end counts). */
  z.strictObject({ kind: z.literal('boundedWait'), maxWaitMs: positiveMs }),
  /**
   * No wait cycle through the application: workers waiting for each other where at least one wait
   * is outside the database (a lease held by a worker that waits in the database), which
   * PostgreSQL's deadlock check cannot see, so it hangs. Always checked, declared or not.
   */
  z.strictObject({ kind: z.literal('noWaitCycle') }),
  /**
   * Liveness for a queue (version 2): every job delivered (received, or claimed from a table
   * queue) is acknowledged within `withinMs` of its first delivery; a job that starves — still
   * unacknowledged that long after — fails the run.
   */
  z.strictObject({ kind: z.literal('jobCompletesWithin'), withinMs: positiveMs }),
  /** Table queue (version 2): a job row is claimed (committed as claimed by a worker) at most once. */
  z.strictObject({ kind: z.literal('oneClaimPerJob') }),
]);

/** The whole scenario, version 2. */
function buildScenarioSchema() {
  return z.strictObject({
    version: z.literal(2),
    /** Preset id this scenario came from (informational). */
    id: z.string().max(60).optional(),
    title: name,
    description: z.string().max(LIMITS.maxTextLength),
    /** Grouping in the catalogue. */
    lesson: z.enum(['invariants', 'locks', 'leases', 'recovery']),
    seed: z.int().min(0).max(2_147_483_647),
    horizonMs: z.int().min(1).max(LIMITS.maxHorizonMs),
    job: jobSchema,
    mechanism: mechanismSchema,
    /** How the lock client library behaves (version 2). */
    client: clientSchema,
    lease: leaseSchema,
    database: databaseSchema,
    destination: destinationSchema,
    /** The queue the workers take their job from (version 2, optional). */
    queue: queueSchema.optional(),
    /** Application processes, each with its own connection pool (version 2, optional; see `processSchema`). */
    processes: z.array(processSchema).min(1).max(LIMITS.maxWorkers).optional(),
    workers: z.array(workerSchema).min(1).max(LIMITS.maxWorkers),
    faults: z.array(faultSchema).max(LIMITS.maxFaults),
    invariants: z.array(invariantSchema).min(1).max(12),
  });
}

/** The whole scenario, version 2 (rebuilt with `faultSchema`; read it through the import). */
export let scenarioSchema = buildScenarioSchema();

onFaultKindsChange(() => {
  faultSchema = buildFaultSchema();
  scenarioSchema = buildScenarioSchema();
});

export type Step = z.infer<typeof stepSchema>;
export type Job = z.infer<typeof jobSchema>;
/** Where a fencing token comes from (`mechanism.fenceSource`). */
export type FenceSource = NonNullable<z.infer<typeof mechanismSchema>['fenceSource']>;
export type Mechanism = z.infer<typeof mechanismSchema>;
export type ClientConfig = z.infer<typeof clientSchema>;
export type LeaseConfig = z.infer<typeof leaseSchema>;
export type DestinationConfig = z.infer<typeof destinationSchema>;
export type QueueConfig = z.infer<typeof queueSchema>;
export type WorkerSpec = z.infer<typeof workerSchema>;
/** An application process and its pool (`scenario.processes`). */
export type ProcessSpec = z.infer<typeof processSchema>;
/** A fault of one of the built-in kinds (a registered kind beyond them is only known at run time). */
export type Fault = BuiltinFault;
export type FaultKind = Fault['kind'];
export type Invariant = z.infer<typeof invariantSchema>;
export type InvariantKind = Invariant['kind'];
/** A validated scenario of the current version (2). */
export type Scenario = z.infer<typeof scenarioSchema>;
