/**
 * A lock service whose grant carries a revision, modelled on etcd v3 (the 3.4 series, as Debian
 * ships it): leases with a TTL in whole seconds (`LeaseGrant`, `LeaseKeepAlive`, `LeaseRevoke`),
 * a key-value store with one global revision counter, and the transaction a lock client sends —
 * compare `create_revision(key) == 0`, then put the key attached to its lease, else get it.
 * The key's create revision (the revision of that put, which the transaction's response header
 * carries) is the fencing token: etcd's `concurrency.Mutex` orders waiters by it, and a later grant
 * always gets a higher one. Sources: the etcd v3 API reference (KV: Range, Txn, DeleteRange;
 * Lease: LeaseGrant, LeaseRevoke, LeaseKeepAlive), "Interacting with etcd" (etcdctl lease grant,
 * keep-alive, revoke, txn), the data model page ("revision: a 64-bit cluster-wide counter that is
 * incremented each time the keyspace is modified"), and ../shared/semantics.md, "Fencing beyond a
 * Redis counter".
 *
 * The rules, each checked against a real etcd 3.4 by the fidelity suite (row "etcd lock service"):
 * - The store's revision grows by one for every transaction that changes the keyspace: a
 *   successful put, a delete that deleted something, a lease revoked (or expired) with keys still
 *   attached (all of them deleted in one revision). A grant, a keep-alive, a read, a transaction
 *   whose compare failed, a delete of a missing key leave it as it is. Every reply carries the
 *   revision after the request (its header's `revision`).
 * - A lease is granted for `max(TTL, the server's minimum)` seconds: etcd raises a shorter TTL to
 *   its minimum lease TTL, 1.5 election timeouts rounded up — 2 s with the default
 *   `--election-timeout` of 1000 ms (`etcdctl lease grant 1` → `granted with TTL(2s)`).
 * - A lease runs out its TTL after its grant or its last keep-alive; a keep-alive restarts the
 *   full TTL. When it runs out etcd revokes it, deleting its keys. The model does this at the exact
 *   millisecond (`nowMs >= expiry`); etcd's lessor looks for expired leases every 500 ms, so a real
 *   key goes up to about half a second later (a keep-alive in between still fails: etcd makes it
 *   wait for the revocation). The fidelity suite keeps its commands out of that interval.
 * - A keep-alive, a revoke, or a put naming a lease that no longer exists fails with
 *   `etcdserver: requested lease not found`; a transaction checks the lease only on the branch it
 *   runs (a failed compare runs the `get`, whose lease is never looked at).
 *
 * Lease ids: etcd's are 64-bit, printed as 16 hex digits, consecutive ids of one member two apart;
 * the model numbers them the same way from a fixed start, so a run is deterministic (a real
 * server's ids differ: the fidelity suite maps them in grant order).
 *
 * Pure: time is only the `nowMs` each call is given, and it never goes backwards.
 */
import { NO_COMPLETIONS, type Execution, type Resource, type ResourceNotice } from './resource';
import { fmtTime } from '../engine/fmt';

/** etcd's minimum lease TTL with its default timings (`--heartbeat-interval 100`, `--election-timeout 1000`): ceil(1.5 × 1 s). */
export const ETCD_MIN_LEASE_TTL_S = 2;

/**
 * A lease TTL in the whole seconds etcd takes (`LeaseGrant`'s TTL, etcdctl's argument): `ms`
 * rounded up, at least 1 (the scenario keeps it whole: `lease.ttlMs` is refused otherwise).
 */
export function ttlSecondsOf(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/** The error a request naming a lease that does not exist (revoked, expired, never granted) gets. */
export const ETCD_LEASE_NOT_FOUND = 'etcdserver: requested lease not found';

/**
 * What a client cut off from etcd gets: its request runs into its deadline (etcdctl's
 * `--command-timeout`, 5 s by default: `Error: context deadline exceeded`, `Error: failed to grant
 * lease (context deadline exceeded)`). The request may or may not have reached the server; in the
 * model it did not.
 */
export const ETCD_TIMEOUT_MESSAGE = 'context deadline exceeded';

/**
 * A request to the lock service, one etcdctl command each (`renderEtcd` prints it):
 * - `leaseGrant`: `etcdctl lease grant <ttlS>` — `ttlS` whole seconds (≥ 1).
 * - `leaseKeepAlive`: `etcdctl lease keep-alive --once <id>` — one keep-alive, the TTL restarts.
 * - `leaseRevoke`: `etcdctl lease revoke <id>` — the lease ends and its keys are deleted.
 * - `txnAcquire`: `etcdctl txn` with compare `create("<key>") = "0"`, success `put <key> <value>
 *   --lease=<lease>`, failure `get <key>`: take the lock if nobody holds it, else see who does.
 * - `del`: `etcdctl del <key>` — deletes the key whoever holds it (the plain-DEL release).
 * - `get`: `etcdctl get <key>`.
 */
export type EtcdCmd =
  | { readonly op: 'leaseGrant'; readonly ttlS: number }
  | { readonly op: 'leaseKeepAlive'; readonly id: string }
  | { readonly op: 'leaseRevoke'; readonly id: string }
  | { readonly op: 'txnAcquire'; readonly key: string; readonly value: string; readonly lease: string }
  | { readonly op: 'del'; readonly key: string }
  | { readonly op: 'get'; readonly key: string };

/** A key as etcd stores it (`mvccpb.KeyValue`): revisions are the store's, `lease` the attached lease id or null. */
export interface EtcdKv {
  readonly key: string;
  readonly value: string;
  /** Revision of the put that created the key (the fencing token of the lock it stands for). */
  readonly createRevision: number;
  /** Revision of its last change. */
  readonly modRevision: number;
  /** Number of puts since it was created (1 after the creating put). */
  readonly version: number;
  readonly lease: string | null;
}

/**
 * The answer to one request. `revision` is the response header's: the store's revision after the
 * request. An error names the request it answers (etcdctl words its errors per command).
 */
export type EtcdReply =
  | { readonly op: 'leaseGrant'; readonly revision: number; readonly id: string; readonly ttlS: number }
  | { readonly op: 'leaseKeepAlive'; readonly revision: number; readonly id: string; readonly ttlS: number }
  /** `deleted`: the keys the revoke deleted (the model's record; the real response carries only the header). */
  | { readonly op: 'leaseRevoke'; readonly revision: number; readonly id: string; readonly deleted: readonly string[] }
  /** `kv`: with `succeeded: false`, what the failure branch's `get` returned (the holder's key). */
  | { readonly op: 'txnAcquire'; readonly revision: number; readonly succeeded: boolean; readonly kv: EtcdKv | null }
  | { readonly op: 'del'; readonly revision: number; readonly deleted: number }
  | { readonly op: 'get'; readonly revision: number; readonly kv: EtcdKv | null }
  | { readonly op: 'error'; readonly of: EtcdCmd['op']; readonly message: string };

/** One lease as the inspector shows it. */
export interface EtcdLeaseSnapshot {
  readonly id: string;
  /** Who asked for it (a worker id). */
  readonly grantedTo: string;
  readonly ttlS: number;
  /** Virtual ms at which it runs out unless kept alive. */
  readonly expiresAtMs: number;
  readonly keys: readonly string[];
}

/** The lock service at one instant: its revision, its keys (with the expiry of their lease) and its leases. */
export interface EtcdSnapshot {
  readonly revision: number;
  readonly keys: readonly (EtcdKv & { readonly expiresAtMs: number | null })[];
  readonly leases: readonly EtcdLeaseSnapshot[];
}

interface Lease {
  readonly id: string;
  readonly grantedTo: string;
  readonly ttlS: number;
  expiresAtMs: number;
  readonly keys: Set<string>;
}

/** The first lease id the model hands out, and the step between consecutive ids (as one etcd member's). */
const LEASE_ID_PREFIX = '694d71ddacf';
const LEASE_ID_FIRST = 0xda227;
const LEASE_ID_STEP = 2;

/**
 * The one line a shell runs for a request (`etcdctl` with `ETCDCTL_API=3`, the default of 3.4's
 * etcdctl): `etcdctl lease grant 10`, `etcdctl lease keep-alive --once 694d71ddacfda227`,
 * `etcdctl lease revoke …`, `etcdctl del lease:export`, `etcdctl get lease:export`, and for the
 * transaction its three blocks on standard input, as bash's `$'…'` string (bash's `<<<` adds the
 * last newline): `etcdctl txn <<< $'create("lease:export") = "0"\n\nput lease:export 7f3a
 * --lease=694d…\n\nget lease:export\n'`.
 * Keys and values are printed as they are: the scenario restricts them to characters that need no
 * quoting (letters, digits, `_ : / . -`).
 */
export function renderEtcd(cmd: EtcdCmd): string {
  switch (cmd.op) {
    case 'leaseGrant':
      return `etcdctl lease grant ${cmd.ttlS}`;
    case 'leaseKeepAlive':
      return `etcdctl lease keep-alive --once ${cmd.id}`;
    case 'leaseRevoke':
      return `etcdctl lease revoke ${cmd.id}`;
    case 'txnAcquire':
      // A here-string ends with a newline of its own: the input's last one is left to it.
      return `etcdctl txn <<< $'${txnInput(cmd).slice(0, -1).replace(/\n/g, '\\n')}'`;
    case 'del':
      return `etcdctl del ${cmd.key}`;
    case 'get':
      return `etcdctl get ${cmd.key}`;
  }
}

/**
 * What `etcdctl txn` reads on standard input for an acquire: compares, blank line, success
 * requests, blank line, failure requests, blank line (etcdctl 3.4 fails with `Error: EOF` when the
 * last block is not ended by a blank line).
 */
export function txnInput(cmd: Extract<EtcdCmd, { op: 'txnAcquire' }>): string {
  return `create("${cmd.key}") = "0"\n\nput ${cmd.key} ${cmd.value} --lease=${cmd.lease}\n\nget ${cmd.key}\n\n`;
}

/**
 * The argv of a request for etcdctl (without the `etcdctl` itself), and the standard input of a
 * transaction: what `renderEtcd` writes, for a harness that runs etcdctl without a shell.
 */
export function etcdctlArgs(cmd: EtcdCmd): { readonly args: readonly string[]; readonly stdin?: string } {
  switch (cmd.op) {
    case 'leaseGrant':
      return { args: ['lease', 'grant', String(cmd.ttlS)] };
    case 'leaseKeepAlive':
      return { args: ['lease', 'keep-alive', '--once', cmd.id] };
    case 'leaseRevoke':
      return { args: ['lease', 'revoke', cmd.id] };
    case 'txnAcquire':
      return { args: ['txn'], stdin: txnInput(cmd) };
    case 'del':
      return { args: ['del', cmd.key] };
    case 'get':
      return { args: ['get', cmd.key] };
  }
}

/**
 * What etcdctl 3.4 prints for a reply in its default (simple) output, line by line: `lease
 * 694d71ddacfda227 granted with TTL(10s)`, `lease … keepalived with TTL(10)`, `lease … revoked`,
 * `SUCCESS`, ``, `OK` or `FAILURE`, ``, `<key>`, `<value>` for the transaction, the number of
 * deleted keys for `del`, the key and its value (or nothing) for `get`; an error as its `Error: …`
 * line on standard error (`Error: failed to revoke lease (etcdserver: requested lease not found)`
 * for a revoke, `Error: failed to grant lease (…)` for a grant). Cut off from etcd, the requests
 * with a command timeout print `Error: … (context deadline exceeded)`; `txn` and `lease
 * keep-alive --once` have none and print nothing (they wait).
 */
export function etcdctlOutput(r: EtcdReply): readonly string[] {
  switch (r.op) {
    case 'leaseGrant':
      return [`lease ${r.id} granted with TTL(${r.ttlS}s)`];
    case 'leaseKeepAlive':
      return [`lease ${r.id} keepalived with TTL(${r.ttlS})`];
    case 'leaseRevoke':
      return [`lease ${r.id} revoked`];
    case 'txnAcquire':
      return r.succeeded ? ['SUCCESS', '', 'OK'] : ['FAILURE', '', ...(r.kv === null ? [] : [r.kv.key, r.kv.value])];
    case 'del':
      return [String(r.deleted)];
    case 'get':
      return r.kv === null ? [] : [r.kv.key, r.kv.value];
    case 'error':
      // etcdctl's txn and keep-alive --once set no deadline: cut off, they print nothing and wait.
      if (r.message === ETCD_TIMEOUT_MESSAGE && (r.of === 'txnAcquire' || r.of === 'leaseKeepAlive')) return [];
      return [r.of === 'leaseRevoke' ? `Error: failed to revoke lease (${r.message})` : r.of === 'leaseGrant' ? `Error: failed to grant lease (${r.message})` : `Error: ${r.message}`];
  }
}

/**
 * etcdctl's output on one line, as the trace shows replies: its lines joined with ` | `, the blank
 * separator lines left out (as a psql result is written on one line): `SUCCESS | OK`,
 * `FAILURE | lease:export | 7f3a`, `lease 694d71ddacfda227 granted with TTL(10s)`, `1`; `(no
 * output)` for a `get` of a missing key; `(no reply: connection timed out)` for a transaction or a
 * keep-alive of a client cut off from etcd (a lock client's own timeout; etcdctl would wait).
 */
export function renderEtcdReply(r: EtcdReply): string {
  if (r.op === 'error' && r.message === ETCD_TIMEOUT_MESSAGE && etcdctlOutput(r).length === 0) return '(no reply: connection timed out)';
  return oneLine(etcdctlOutput(r));
}

/** Output lines on one line: non-empty lines joined with ` | `, or `(no output)`. */
export function oneLine(lines: readonly string[]): string {
  const shown = lines.filter((l) => l !== '');
  return shown.length === 0 ? '(no output)' : shown.join(' | ');
}

/** The error reply `message` to a request of kind `of`. */
export function etcdError(of: EtcdCmd['op'], message: string): EtcdReply {
  return { op: 'error', of, message };
}

/**
 * The etcd model (registry name `etcd`, trace kind `etcd`): one member, so one leader that never
 * changes. Callers are worker ids (recorded as a lease's `grantedTo`, for the inspector and the
 * narration of an expiry). Throws RangeError when `nowMs` goes backwards or a TTL is not a whole
 * number of seconds ≥ 1.
 */
export class EtcdLockService implements Resource<EtcdCmd, EtcdReply, EtcdSnapshot> {
  readonly name = 'etcd';
  readonly traceKind = 'etcd';
  /** The store's revision now (a fresh etcd is at 1). */
  private rev: number;
  private readonly leases = new Map<string, Lease>();
  private readonly kvs = new Map<string, EtcdKv>();
  private grants = 0;
  private lastNowMs: number | null = null;
  /** Expiries applied by a request before the engine's wake-up could report them (reported by the next `wake`). */
  private unreported: ResourceNotice[] = [];

  /** @param startRevision the store's revision before the first request (≥ 1; a fresh etcd: 1). */
  constructor(startRevision = 1) {
    if (!Number.isSafeInteger(startRevision) || startRevision < 1) throw new RangeError(`EtcdLockService: startRevision must be an integer ≥ 1, got ${startRevision}`);
    this.rev = startRevision;
  }

  /** The store's revision now. */
  get revision(): number {
    return this.rev;
  }

  /** The key as a `get` would return it now (after due expiries), or null. */
  kv(nowMs: number, key: string): EtcdKv | null {
    this.expire(nowMs);
    return this.kvs.get(key) ?? null;
  }

  /** Whether lease `id` exists now (granted, not revoked, not expired). */
  hasLease(nowMs: number, id: string): boolean {
    this.expire(nowMs);
    return this.leases.has(id);
  }

  /** Executes one request at `nowMs` for `caller`. Due expiries are applied first. Never waits. */
  execute(nowMs: number, caller: string, cmd: EtcdCmd): Execution<EtcdCmd, EtcdReply> {
    this.expire(nowMs);
    return { reply: this.run(nowMs, caller, cmd), completions: NO_COMPLETIONS };
  }

  private run(nowMs: number, caller: string, cmd: EtcdCmd): EtcdReply {
    switch (cmd.op) {
      case 'leaseGrant': {
        if (!Number.isSafeInteger(cmd.ttlS) || cmd.ttlS < 1) throw new RangeError(`lease grant: the TTL must be a whole number of seconds ≥ 1, got ${cmd.ttlS}`);
        const ttlS = Math.max(cmd.ttlS, ETCD_MIN_LEASE_TTL_S);
        const id = LEASE_ID_PREFIX + ((LEASE_ID_FIRST + LEASE_ID_STEP * this.grants) % 0x100000).toString(16).padStart(5, '0');
        this.grants += 1;
        this.leases.set(id, { id, grantedTo: caller, ttlS, expiresAtMs: nowMs + ttlS * 1000, keys: new Set() });
        return { op: 'leaseGrant', revision: this.rev, id, ttlS };
      }
      case 'leaseKeepAlive': {
        const lease = this.leases.get(cmd.id);
        if (!lease) return etcdError(cmd.op, ETCD_LEASE_NOT_FOUND);
        lease.expiresAtMs = nowMs + lease.ttlS * 1000;
        return { op: 'leaseKeepAlive', revision: this.rev, id: lease.id, ttlS: lease.ttlS };
      }
      case 'leaseRevoke': {
        const lease = this.leases.get(cmd.id);
        if (!lease) return etcdError(cmd.op, ETCD_LEASE_NOT_FOUND);
        return { op: 'leaseRevoke', id: lease.id, deleted: this.revoke(lease), revision: this.rev };
      }
      case 'txnAcquire': {
        const held = this.kvs.get(cmd.key);
        if (held) return { op: 'txnAcquire', revision: this.rev, succeeded: false, kv: held };
        // The success branch's put names a lease: etcd checks it before applying the transaction.
        const lease = this.leases.get(cmd.lease);
        if (!lease) return etcdError(cmd.op, ETCD_LEASE_NOT_FOUND);
        this.rev += 1;
        this.kvs.set(cmd.key, { key: cmd.key, value: cmd.value, createRevision: this.rev, modRevision: this.rev, version: 1, lease: lease.id });
        lease.keys.add(cmd.key);
        return { op: 'txnAcquire', revision: this.rev, succeeded: true, kv: null };
      }
      case 'del': {
        const kv = this.kvs.get(cmd.key);
        if (!kv) return { op: 'del', revision: this.rev, deleted: 0 };
        this.deleteKeys([cmd.key]);
        return { op: 'del', revision: this.rev, deleted: 1 };
      }
      case 'get':
        return { op: 'get', revision: this.rev, kv: this.kvs.get(cmd.key) ?? null };
    }
  }

  /** Deletes `keys` (each detached from its lease) in one revision, if any exists. */
  private deleteKeys(keys: readonly string[]): string[] {
    const gone = keys.filter((k) => this.kvs.has(k));
    if (gone.length === 0) return [];
    this.rev += 1;
    for (const k of gone) {
      const lease = this.kvs.get(k)!.lease;
      if (lease !== null) this.leases.get(lease)?.keys.delete(k);
      this.kvs.delete(k);
    }
    return gone;
  }

  /** Ends a lease: its keys are deleted (one revision), the lease is gone. Returns the deleted keys, sorted. */
  private revoke(lease: Lease): string[] {
    this.leases.delete(lease.id);
    return this.deleteKeys([...lease.keys].sort());
  }

  /** Moves time to `nowMs` and revokes every lease whose TTL ran out by then, remembering each for the next `wake`. */
  private expire(nowMs: number): void {
    if (!Number.isSafeInteger(nowMs)) throw new RangeError(`EtcdLockService: nowMs must be an integer number of virtual milliseconds, got ${nowMs}`);
    if (this.lastNowMs !== null && nowMs < this.lastNowMs) throw new RangeError(`EtcdLockService: time went backwards (nowMs ${nowMs} after ${this.lastNowMs})`);
    this.lastNowMs = nowMs;
    const due = [...this.leases.values()].filter((l) => l.expiresAtMs <= nowMs).sort((a, b) => a.expiresAtMs - b.expiresAtMs || (a.id < b.id ? -1 : 1));
    for (const lease of due) this.unreported.push(this.expiryNotice(lease, this.revoke(lease)));
  }

  /** The trace notice of a lease that ran out (`forced`: made to run out now, by the `expireLease` fault). */
  private expiryNotice(lease: Lease, deleted: readonly string[], forced = false): ResourceNotice {
    const key = deleted[0];
    const why = forced ? `Lease ${lease.id} (${lease.grantedTo}'s) runs out now` : `Lease ${lease.id} (${lease.grantedTo}'s) was not kept alive for its TTL of ${fmtTime(lease.ttlS * 1000)}`;
    if (key === undefined) return { actor: 'etcd', kind: 'expiry', narration: `${why}: etcd revokes it. No key was attached to it, so nothing is deleted.` };
    return {
      actor: 'etcd', kind: 'expiry',
      narration: `${why}: etcd revokes it and deletes ${deleted.join(', ')} (revision ${this.rev}). Whoever believes they hold the lock no longer does, and anyone may take it.`,
      data: { t: 'lease', op: 'expired', key },
    };
  }

  /**
   * Forces the lease that `key` is attached to to run out now, as if its TTL had passed (the
   * `expireLease` fault). Returns the notice of that expiry, or null when no lease holds the key.
   */
  forceExpire(nowMs: number, key: string): ResourceNotice | null {
    this.expire(nowMs);
    const id = this.kvs.get(key)?.lease ?? null;
    const lease = id === null ? undefined : this.leases.get(id);
    if (!lease) return null;
    return this.expiryNotice(lease, this.revoke(lease), true);
  }

  waits(): boolean {
    return false;
  }

  renderCommand(cmd: EtcdCmd): string {
    return renderEtcd(cmd);
  }

  renderReply(reply: EtcdReply): string {
    return renderEtcdReply(reply);
  }

  /** Keys and leases at `nowMs` (read-only: leases that have run out by then are left out). */
  snapshot(nowMs: number): EtcdSnapshot {
    const live = [...this.leases.values()].filter((l) => l.expiresAtMs > nowMs);
    const liveIds = new Set(live.map((l) => l.id));
    const keys = [...this.kvs.values()]
      .filter((kv) => kv.lease === null || liveIds.has(kv.lease))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .map((kv) => ({ ...kv, expiresAtMs: kv.lease === null ? null : this.leases.get(kv.lease)!.expiresAtMs }));
    // The revision is the store's now; an expiry not yet applied would add one.
    return { revision: this.rev, keys, leases: live.sort((a, b) => (a.id < b.id ? -1 : 1)).map((l) => ({ id: l.id, grantedTo: l.grantedTo, ttlS: l.ttlS, expiresAtMs: l.expiresAtMs, keys: [...l.keys].sort() })) };
  }

  /** The earliest expiry of a lease, or null; never before the last time seen (a due one is "now"). */
  nextWakeMs(): number | null {
    let best: number | null = null;
    for (const l of this.leases.values()) if (best === null || l.expiresAtMs < best) best = l.expiresAtMs;
    if (best === null || this.lastNowMs === null) return best;
    return Math.max(best, this.lastNowMs);
  }

  /** Leases whose TTL ran out by `nowMs` (and those a request already revoked on its way in), as trace notices. */
  wake(nowMs: number): readonly ResourceNotice[] {
    this.expire(nowMs);
    const out = this.unreported;
    this.unreported = [];
    return out;
  }
}
