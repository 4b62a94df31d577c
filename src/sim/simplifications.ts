/**
 * Where the model simplifies PostgreSQL and Redis on purpose. Shown in the app's help ("How
 * faithful is the model?") and left out of the fidelity comparison (`npm run test:fidelity`).
 */
export interface Simplification {
  readonly title: string;
  readonly detail: string;
}

/** The deliberate simplifications, in plain words. */
export const MODEL_SIMPLIFICATIONS: readonly Simplification[] = [
  { title: 'Deadlocks: sessions for process ids, a bounded reordering', detail: 'As in PostgreSQL, a statement that has waited deadlock_timeout (database.deadlockTimeoutMs, default 1 s) runs the deadlock check once; if its wait closes a cycle inside the database it fails with 40P01 and its transaction is aborted, so the others proceed. The DETAIL names connections (c1) and the database as lockscope where PostgreSQL prints process ids and OIDs, and a soft deadlock is resolved by at most 4 queue reorderings. A cycle through the application (a lease held by a worker that waits in the database) is invisible to PostgreSQL and hangs, as it would; the verdict reports it as stuck.' },
  { title: 'No DDL, so no CREATE INDEX CONCURRENTLY', detail: 'Workers run DML, transaction control and advisory lock functions only. CREATE INDEX CONCURRENTLY, which waits for every older transaction (one that only waits for a lock included) and so can close a deadlock with an advisory-lock waiter, is not a statement the model has; a migration tool that does this cannot be built yet.' },
  { title: 'READ COMMITTED only', detail: 'REPEATABLE READ and SERIALIZABLE, and their 40001 serialization failures, are not modelled.' },
  { title: 'Released waiters run first-come, first-served', detail: 'When one COMMIT or ROLLBACK releases several waiting statements, the model re-runs them in the order they started waiting; on a real server they race.' },
  { title: 'A crashed client is noticed at once', detail: 'A worker that crashes while its statement waits has the statement cancelled and its session ended immediately; a real server notices a vanished client only when it next writes to it.' },
  { title: 'Only lock_timeout is a setting', detail: 'mechanism.acquireTimeoutMs sets lock_timeout for the advisory lock wait (55P03); statement_timeout (57014) exists in the database model but no scenario setting triggers it yet.' },
  { title: 'Redis expiry at the exact millisecond', detail: 'The model drops a key once now ≥ its expiry time; Redis keeps it through that millisecond (now > expiry). Expiry precision in Redis is about 1 ms anyway.' },
  { title: 'A queue holds one job, claimed without LIMIT', detail: 'An SQS-like queue (scenario queue.kind "sqs") holds one message whose body is the job key, one message per ReceiveMessage, short polling every queue.pollEveryMs (no WaitTimeSeconds long poll), no dead-letter queue; ChangeMessageVisibility with a receipt handle that is no longer the latest answers MessageNotInflight (SQS documents that error for a message whose timeout passed). A table queue (queue.kind "table") has one job row, claimed with SELECT id … WHERE status = \'pending\' and the mechanism\'s row lock, without ORDER BY … LIMIT 1 — the same rows with one job. The stalled-job checker runs at multiples of its period from 0.' },
  { title: 'One Redis primary with a lagging replica', detail: 'Failover promotes a replica that lost the last replicationLagMs of writes; Redlock (several primaries) is not modelled.' },
];
