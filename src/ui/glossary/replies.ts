/**
 * What each reply and code in a trace means, for a reader learning alone: command tags
 * (`INSERT 0 1`, `SELECT 0`), `(void)`, `t`/`f`, SQLSTATEs (23505, 55P03, 25P02, 40001, 40P01,
 * 57014, 23514, and FATAL 25P03), Redis replies (`OK`, `(nil)`, `(integer) n`), the scripts' 1/0, HTTP statuses of
 * the destination and the pool's replies, etcdctl's lease, txn and del output. Sources: PostgreSQL docs "Appendix A. PostgreSQL Error
 * Codes", "Command tags" (protocol: CommandComplete), "Advisory Lock Functions"; Redis docs for
 * SET (NX, PX), DEL, PEXPIRE, INCR, EVAL; etcd v3 API (Lease, KV Txn) and "Interacting with etcd"; ../shared/semantics.md.
 */
import { fmtTime } from '../../sim';

/** SQLSTATE → its condition name and what it means here. */
export const SQLSTATES: Readonly<Record<string, string>> = {
  '23505': 'unique_violation: another row already has this key (a UNIQUE constraint or index refused the second one).',
  '23514': 'check_violation: the new row breaks a CHECK constraint (e.g. stock >= 0).',
  '55P03': 'lock_not_available: the lock is held by another session, and NOWAIT or lock_timeout said not to wait for it.',
  '25P02': 'in_failed_sql_transaction: an earlier statement of this transaction failed; every statement is refused until ROLLBACK.',
  '40001': 'serialization_failure: under REPEATABLE READ or SERIALIZABLE, the transaction conflicted with a concurrent one — the row it updates or locks was changed or deleted by a transaction that committed after its snapshot ("concurrent update", "concurrent delete"), or SERIALIZABLE found reads and writes no serial order explains ("read/write dependencies"). It must be retried from BEGIN; a call to another system made inside it is not undone and runs again.',
  '25P03': 'idle_in_transaction_session_timeout: the session sat idle inside an open transaction longer than the setting, so the server ended it (FATAL): the transaction rolled back, every lock of the session — session-level advisory locks too — was released, and the connection is closed.',
  '40P01': 'deadlock_detected: this statement had waited deadlock_timeout (1 s by default) for a lock, and PostgreSQL\'s deadlock check found that its wait closes a cycle (the DETAIL lists who waits for whom). Its transaction is aborted and its locks are released, so the others proceed; retry the whole transaction, and take locks in one order everywhere.',
  '57014': 'query_canceled: the statement was cancelled — by statement_timeout ("canceling statement due to statement timeout": it ran, or waited for a lock, longer than the setting), by pg_cancel_backend or by the client. Inside a transaction, the transaction is now aborted.',
};

/**
 * One entry: a reply pattern and what it means (`m` is the match). `say` says what the reply
 * means and nothing of which mechanism is the fix (an interview's candidate reads it); `hint`,
 * shown after it only where the view shows hints, may say what a mechanism made of it.
 */
interface Entry { readonly re: RegExp; readonly say: (m: RegExpExecArray) => string; readonly hint?: (m: RegExpExecArray) => string }

const rows = (n: string) => (n === '1' ? '1 row' : `${n} rows`);

const ENTRIES: readonly Entry[] = [
  { re: /^ERROR ([0-9A-Z]{5})\b/, say: (m) => `ERROR with SQLSTATE ${m[1]}: ${SQLSTATES[m[1]!] ?? 'see PostgreSQL\'s list of error codes.'} The transaction is now aborted until ROLLBACK.` },
  { re: /^FATAL ([0-9A-Z]{5})\b/, say: (m) => `FATAL with SQLSTATE ${m[1]}: ${SQLSTATES[m[1]!] ?? 'see PostgreSQL\'s list of error codes.'} The server ended the session: the client must open a new connection.` },
  { re: /^INSERT 0 (\d+)/, say: (m) => `Command tag of INSERT: ${rows(m[1]!)} inserted (the 0 is a legacy object id, always 0).${m[1] === '0' ? ' 0 rows: ON CONFLICT DO NOTHING skipped the row.' : ''}` },
  { re: /^SELECT (\d+)/, say: (m) => (m[1] === '0' ? 'Command tag of SELECT: no row matched.' : `Command tag of SELECT: ${rows(m[1]!)} returned.`) },
  { re: /^UPDATE (\d+)/, say: (m) => (m[1] === '0' ? 'Command tag of UPDATE: no row matched, nothing changed.' : `Command tag of UPDATE: ${rows(m[1]!)} changed.`) },
  { re: /^DELETE (\d+)/, say: (m) => `Command tag of DELETE: ${rows(m[1]!)} deleted.` },
  { re: /^BEGIN$/, say: () => 'A transaction started: its changes stay invisible to others until COMMIT.' },
  { re: /^COMMIT$/, say: () => 'The transaction committed: its changes are visible, its row locks and transaction-level advisory locks are released.' },
  { re: /^ROLLBACK$/, say: () => 'The transaction was undone: its changes are gone, its row locks and transaction-level advisory locks released (session-level advisory locks stay).' },
  { re: /^\(void\)/, say: () => 'The function returns nothing (void): pg_advisory_lock and pg_advisory_xact_lock answer only once the lock is held.' },
  { re: /^t$/, say: () => 'Boolean true: pg_try_advisory_lock got the lock; pg_advisory_unlock released one this session held.' },
  { re: /^f$/, say: () => 'Boolean false: pg_try_advisory_lock did not get the lock (someone holds it); pg_advisory_unlock: this session did not hold it (with a WARNING).' },
  { re: /^WARNING: {2}you don't own a lock of type (\w+); f$/, say: () => 'pg_advisory_unlock returned false with a WARNING: this session (this backend) does not hold the lock, so nothing was released. Behind a transaction-mode pooler the unlock may run on another server connection than the lock, which stays held.' },
  { re: /^server connection (s\d+)$/, say: (m) => `PgBouncer linked server connection ${m[1]} (a PostgreSQL backend) to this client; its session state (session advisory locks) belongs to that backend.` },
  { re: /^DISCARD ALL$/, say: () => 'PgBouncer reset the server connection (server_reset_query, session mode): its session state goes, session advisory locks included; the backend stays open.' },
  { re: /^(s\d+) closed; (s\d+) opened$/, say: (m) => `PgBouncer closed server connection ${m[1]} (its client died inside a transaction, which rolls back) and opened ${m[2]} in its place.` },
  { re: /^waits\b/, say: () => 'The statement is blocked: it waits for the lock named in brackets and proceeds (or fails) when that holder commits, rolls back or unlocks.' },
  { re: /^OK$/, say: () => 'Redis simple string OK: the SET happened (with NX: the key was free and is now ours, with PX its TTL in ms).' },
  { re: /^\(nil\)/, say: () => 'Redis null: with SET … NX the key exists (someone holds the lease), so nothing was set; with GET, no such key.' },
  { re: /^\(integer\) 1$/, say: () => 'Redis integer 1: DEL removed one key; a script sent with EVAL returned 1; PEXPIRE set the TTL.', hint: () => 'The compare-and-delete/extend script returns 1 when the key still held our token and it acted.' },
  { re: /^\(integer\) 0$/, say: () => 'Redis integer 0: nothing done — DEL found no such key; a script sent with EVAL returned 0; PEXPIRE found no such key.', hint: () => 'The compare-and-delete/extend script returns 0 when the key is gone or holds someone else\'s token (not ours, so not touched).' },
  { re: /^\(integer\) -?\d+$/, say: () => 'Redis integer: INCR\'s new counter value (one more than the last), or PTTL\'s remaining ms (-2: no key, -1: no TTL).', hint: () => 'Taken at each acquire, INCR\'s value is a fencing token, higher for every new holder.' },
  { re: /^[01]$/, say: (m) => (m[0] === '1' ? 'The script answered 1. (From etcdctl del: one key deleted.)' : 'The script answered 0. (From etcdctl del: no such key, nothing deleted.)'), hint: (m) => (m[0] === '1' ? 'The compare-and-delete/extend script answers 1 when the key was still ours and it acted; etcdctl del deletes the key whoever held it.' : 'The compare-and-delete/extend script answers 0 when the key was not ours (expired or taken by another), so it did nothing.') },
  { re: /^lease [0-9a-f]+ granted with TTL\((\d+)s\)$/, say: (m) => `etcd granted a lease of ${fmtTime(Number(m[1]) * 1000)}: it lives that long unless its holder keeps it alive, and every key put with it is deleted when it runs out. (etcd raises a TTL below its minimum — 2 s with its default timings — to that minimum.)` },
  { re: /^lease [0-9a-f]+ keepalived with TTL\((\d+)\)$/, say: (m) => `A keep-alive reached etcd: the lease lives its full ${fmtTime(Number(m[1]) * 1000)} again from now. It extends the lease, not a key: a key someone deleted meanwhile does not come back, and the reply cannot tell.` },
  { re: /^lease [0-9a-f]+ revoked$/, say: () => 'The lease is revoked: etcd deleted every key still attached to it, in one revision (the reply does not say which keys; a key someone else holds with their own lease is untouched).' },
  { re: /^SUCCESS \| OK$/, say: () => 'etcdctl txn: the compare held (create_revision of the key was 0: no such key), so the success branch ran and put the key with the lease — the lock is taken. The transaction\'s revision (its response header; etcdctl -w json shows it) is the key\'s create revision, higher for every later grant.', hint: () => 'That revision can serve as the fencing token.' },
  { re: /^FAILURE \|/, say: () => 'etcdctl txn: the compare failed (the key exists: someone holds the lock), so the failure branch ran its get; etcdctl prints the key and its value (the holder\'s owner token). Nothing changed.' },
  { re: /^Error: (failed to revoke lease \()?etcdserver: requested lease not found/, say: () => 'etcd has no such lease: it was revoked, or it ran out because nothing kept it alive — and every key attached to it went with it.' },
  { re: /^Error: (failed to (grant|revoke) lease \()?context deadline exceeded/, say: () => 'etcdctl could not reach etcd before its command timeout: the client cannot tell whether the request happened.' },
  { re: /^\(no output\)$/, say: () => 'etcdctl get printed nothing: there is no such key.' },
  { re: /^\(no reply received: the caller crashed\)/, say: () => 'The caller died before the answer arrived: the API received the request (the effect may have happened), but nobody read its reply.' },
  { re: /^\(no reply/, say: () => 'No reply arrived: the client cannot tell whether the command ran (a timeout is not a "no").' },
  { re: /^\(pending: no reply yet\)/, say: () => 'The request is sent and not answered yet: its reply appears as a later event, when it arrives.' },
  { re: /^\(error\)/, say: () => 'A Redis error reply: the command was refused.' },
  { re: /^200 OK \(replayed/, say: () => 'HTTP 200 OK, replayed: the destination saw this idempotency key before: it replays the first answer and performs nothing.' },
  { re: /^200 OK \(upload complete\)/, say: () => 'HTTP 200 OK from the file store: the upload finished and the file is written (a later upload of the same name replaces it).' },
  { re: /^201 Created/, say: () => 'HTTP 201 Created from the external API: it performed the request and created a new resource (a charge, an e-mail, a shipment).' },
  { re: /^200 OK$/, say: () => 'SQS HTTP 200 with an empty body: the DeleteMessage or ChangeMessageVisibility request was accepted. DeleteMessage answers 200 even with a receipt handle that is no longer the latest — and then leaves the message in the queue.' },
  { re: /^409 Conflict: a request with idempotency key/, say: () => 'HTTP 409 Conflict: a request with the same idempotency key is still being processed; nothing was performed, and the caller retries later (it then gets the first request\'s saved result).' },
  { re: /^409 /, say: () => 'HTTP 409 Conflict: the destination refused the write (a fencing token lower than one it already accepted).' },
  { re: /^Messages: \[\]/, say: () => 'SQS ReceiveMessage returned no message: none is visible now (every message is deleted, or in flight with another consumer until its visibility timeout passes).' },
  { re: /^Messages: \[MessageId=/, say: () => 'SQS ReceiveMessage delivered a message: nobody else receives it until its visibility timeout passes. The receipt handle is new on every delivery (DeleteMessage needs the latest); ApproximateReceiveCount above 1 means it was delivered before and never deleted.' },
  { re: /^400 AWS\.SimpleQueueService\.MessageNotInflight/, say: () => 'SQS error MessageNotInflight: the message is not in flight under this receipt handle (its visibility timeout passed, or it was received again since): too late to extend or hand it back.' },
  { re: /^c\d+$/, say: () => 'The pool lent this connection (a database session; session state such as advisory locks stays with it).' },
  { re: /^ok$/, say: () => 'The connection went back to the pool, with whatever session state it had.' },
  { re: /^closed$/, say: () => 'The connection was closed: its session ends and PostgreSQL releases its locks.' },
  { re: /^Error: timeout exceeded when trying to connect$/, say: () => 'The application\'s pool gave up: no connection came free within its acquire timeout (node-postgres connectionTimeoutMillis, HikariCP connectionTimeout). pool.connect() throws, and the job fails.' },
];

/** The entries whose patterns must be tried before others (the replayed 200 before the generic 2xx); otherwise the list's order (specific before general). */
const ORDERED = [...ENTRIES.filter((e) => e.re.source.startsWith('^200 OK')), ...ENTRIES.filter((e) => !e.re.source.startsWith('^200 OK'))];

/**
 * What a reply means, or null when the glossary has no entry for it. With `hints` false (a view
 * without hints: the interview's candidate) only what the reply means, never which mechanism
 * would have answered otherwise.
 */
export function explainReply(reply: string, hints = true): string | null {
  const r = reply.trim();
  for (const e of ORDERED) {
    const m = e.re.exec(r);
    if (m) return hints && e.hint ? `${e.say(m)} ${e.hint(m)}` : e.say(m);
  }
  return null;
}
