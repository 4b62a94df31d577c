/**
 * The simulated Redis lease store: a single Redis 7.0 primary (plus one asynchronously replicated
 * replica for the failover fault) that answers typed `RedisCmd`s with the replies Redis gives.
 *
 * Pure kernel: no DOM, no wall clock, no timers, no randomness. Virtual time is passed in as
 * `nowMs` (integer milliseconds) and must never go backwards. See the project's semantics notes
 * ("The semantics Lockscope must reproduce"),
 * "Redis leases" and "Leases, pauses and fencing".
 *
 * Expiry. Real Redis treats a key as expired when `now > when` (it is still readable during its
 * exact expiry millisecond; `keyIsExpired` in db.c) and the docs give expiry precision as about
 * 1 ms. The model's choice: a key is gone once `nowMs >= expiresAtMs`, so a 30 000 ms lease set at
 * t = 0 is absent at t = 30 000 and PTTL of a live key is always >= 1. Expiry is lazy (a command
 * that touches an expired key removes it first) plus active (`expireDue`, which the engine calls
 * at `nextExpiryMs()` so it can narrate "lease:export expired").
 *
 * Clocks. Expiry times are stored in the *server clock* (like Redis' absolute unix-ms expiry,
 * which is also what a replica receives). The primary's server clock reads
 * `nowMs + serverClockOffsetMs`; `clockJump` moves it forward, which expires keys early. The
 * replica's clock never jumps, and after a failover the new primary's offset is 0.
 *
 * Replication. Every write (including every removal) is logged as `(atMs, key, new state)`. The
 * replica's state as of `nowMs - replicationLagMs` is the fold of the log up to that time; older
 * log entries are folded eagerly so the log only ever holds the lag period.
 */
import type { RedisCmd, RedisReply } from './redisTypes';

/** One stored key as it appears in a snapshot. `expiresAtServerMs` is in server-clock ms; null = no TTL. */
export interface LeaseKeySnapshot {
  readonly key: string;
  readonly value: string;
  readonly expiresAtServerMs: number | null;
}

/** One logged write not yet on the replica: at virtual `atMs`, `key` became `state` (null = removed). */
export interface LeaseWriteSnapshot {
  readonly atMs: number;
  readonly key: string;
  readonly state: { readonly value: string; readonly expiresAtServerMs: number | null } | null;
}

/**
 * Deep, JSON-serialisable copy of a `LeaseStore` (see `LeaseStore.snapshot`). All arrays are
 * sorted (keys by name, writes by time then log order), so equal stores give equal JSON.
 */
export interface LeaseStoreSnapshot {
  readonly version: 1;
  /** Replica lag in ms used by `failover` (>= 0). */
  readonly replicationLagMs: number;
  /** Last virtual time seen by a mutating call, or null if none yet. */
  readonly lastNowMs: number | null;
  /** Primary's server clock minus virtual time, in ms (sum of clock jumps since the last failover). */
  readonly serverClockOffsetMs: number;
  /** Keys on the primary (possibly including expired keys not yet removed). */
  readonly keys: readonly LeaseKeySnapshot[];
  /** Replica state as of `lastNowMs - replicationLagMs`. */
  readonly replicaKeys: readonly LeaseKeySnapshot[];
  /** Writes after `lastNowMs - replicationLagMs`, oldest first: lost if a failover happens now. */
  readonly pendingWrites: readonly LeaseWriteSnapshot[];
}

interface KeyState {
  value: string;
  /** Absolute expiry in server-clock ms; null = no TTL. */
  expiresAtServerMs: number | null;
}

interface LogEntry {
  atMs: number;
  key: string;
  state: KeyState | null;
}

const NOT_INTEGER = 'ERR value is not an integer or out of range';
const SYNTAX = 'ERR syntax error';
const OVERFLOW = 'ERR increment or decrement would overflow';
/** SHA-1 of COMPARE_AND_EXTEND_SCRIPT, as Redis 7.0 names the script in errors raised inside it. */
const COMPARE_AND_EXTEND_SHA1 = '36e94d1c6e02fcefaa7ee5d79eee614dbac55f10';
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function err(message: string): RedisReply {
  return { kind: 'error', message };
}
function int(value: number): RedisReply {
  return { kind: 'int', value };
}
function invalidExpire(command: string): string {
  return `ERR invalid expire time in '${command}' command`;
}

/**
 * Validates a millisecond argument as Redis does (`getLongLongFromObjectOrReply`, then the
 * overflow check on `now + ms`). Returns an error message or null. `positive` = SET's rule
 * (`PX` must be > 0). Overflow is checked against JS's safe-integer range (2^53) instead of int64
 * minus the unix time: an approximation — a TTL between ~2^53 ms and ~2^63 ms, which real Redis
 * accepts, is rejected here with the same "invalid expire time" error Redis gives past int64.
 */
function checkMs(ms: number, serverNowMs: number, command: string, positive: boolean): string | null {
  if (!Number.isInteger(ms) || Math.abs(ms) >= 2 ** 63) return NOT_INTEGER;
  if (positive && ms <= 0) return invalidExpire(command);
  if (ms > Number.MAX_SAFE_INTEGER - serverNowMs) return invalidExpire(command);
  return null;
}

/** Redis `string2ll`: `0` or an optional `-` then a digit 1-9 then digits, within int64. */
function parseInt64(s: string): bigint | null {
  if (s.length > 20 || !/^(0|-?[1-9][0-9]*)$/.test(s)) return null;
  const n = BigInt(s);
  return n < INT64_MIN || n > INT64_MAX ? null : n;
}

function checkTime(nowMs: number, method: string): void {
  if (!Number.isSafeInteger(nowMs)) {
    throw new RangeError(`LeaseStore.${method}: nowMs must be an integer number of virtual milliseconds, got ${nowMs}`);
  }
}

function copyState(s: KeyState): KeyState {
  return { value: s.value, expiresAtServerMs: s.expiresAtServerMs };
}

function toKeySnapshots(m: ReadonlyMap<string, KeyState>): LeaseKeySnapshot[] {
  return [...m.keys()].sort().map((key) => {
    const s = m.get(key) as KeyState;
    return { key, value: s.value, expiresAtServerMs: s.expiresAtServerMs };
  });
}

function fromKeySnapshots(list: readonly LeaseKeySnapshot[]): Map<string, KeyState> {
  return new Map(list.map((k) => [k.key, { value: k.value, expiresAtServerMs: k.expiresAtServerMs }]));
}

/**
 * A simulated Redis 7.0 primary holding leases and fencing counters, with an asynchronously
 * replicated replica for the failover fault. Follows the Redis docs: SET, GET, DEL, PEXPIRE, PTTL,
 * INCR, EVAL, "Distributed Locks with Redis", and "Replication" (asynchronous).
 *
 * Every method that takes `nowMs` throws `RangeError` if `nowMs` is not a safe integer or is
 * earlier than the latest time already passed in.
 */
export class LeaseStore {
  private readonly replicationLagMs: number;
  private keys = new Map<string, KeyState>();
  private replica = new Map<string, KeyState>();
  private log: LogEntry[] = [];
  private lastNowMs: number | null = null;
  private serverClockOffsetMs = 0;

  /**
   * @param opts.replicationLagMs how far (ms, integer >= 0) the replica trails the primary; used
   *   only by `failover`. Default 0 (a failover loses nothing). Throws RangeError otherwise.
   */
  constructor(opts?: { replicationLagMs?: number }) {
    const lag = opts?.replicationLagMs ?? 0;
    if (!Number.isSafeInteger(lag) || lag < 0) {
      throw new RangeError(`LeaseStore: replicationLagMs must be an integer >= 0, got ${lag}`);
    }
    this.replicationLagMs = lag;
  }

  /**
   * Runs one command at virtual time `nowMs` and returns Redis 7.0's reply (see `RedisCmd` for the
   * commands, semantics.md "Redis leases" for the rules). Errors Redis would return are replies
   * of kind `error`, never exceptions. Throws RangeError if `nowMs` goes backwards.
   */
  execute(nowMs: number, cmd: RedisCmd): RedisReply {
    this.advance(nowMs, 'execute');
    switch (cmd.op) {
      case 'SET':
        return this.set(nowMs, cmd);
      case 'GET': {
        const s = this.live(nowMs, cmd.key);
        return s ? { kind: 'bulk', value: s.value } : { kind: 'nil' };
      }
      case 'DEL':
        return this.del(nowMs, cmd.keys);
      case 'PEXPIRE': {
        const e = checkMs(cmd.ms, this.serverNow(nowMs), 'pexpire', false);
        return e ? err(e) : this.pexpire(nowMs, cmd.key, cmd.ms);
      }
      case 'PTTL':
        return int(this.pttl(nowMs, cmd.key));
      case 'INCR':
        return this.incr(nowMs, cmd.key);
      case 'COMPARE_AND_DELETE':
        return this.live(nowMs, cmd.key)?.value === cmd.token ? this.del(nowMs, [cmd.key]) : int(0);
      case 'COMPARE_AND_EXTEND':
        return this.compareAndExtend(nowMs, cmd.key, cmd.token, cmd.ms);
    }
  }

  /**
   * Active expiry: removes every key whose TTL has run out by `nowMs` (expiry <= server clock) and
   * returns their names, sorted, so the engine can narrate "lease:export expired".
   * Throws RangeError if `nowMs` goes backwards.
   */
  expireDue(nowMs: number): string[] {
    this.advance(nowMs, 'expireDue');
    return this.removeExpired(nowMs);
  }

  /**
   * The earliest virtual time (ms) at which `expireDue` will remove a key, or null if no key has a
   * TTL. A key already due but not yet removed yields the last `nowMs` seen ("due now"), never an
   * earlier time, so scheduling an expiry event there never runs time backwards.
   */
  nextExpiryMs(): number | null {
    let best: number | null = null;
    for (const s of this.keys.values()) {
      if (s.expiresAtServerMs === null) continue;
      const atMs = s.expiresAtServerMs - this.serverClockOffsetMs;
      if (best === null || atMs < best) best = atMs;
    }
    if (best === null || this.lastNowMs === null) return best;
    return Math.max(best, this.lastNowMs);
  }

  /**
   * Fault "force a lease to expire": removes `key` at `nowMs` (replicated like a DEL). Returns true
   * if a live key was removed; false if it was missing or had already expired (it is then removed
   * as by lazy expiry). Throws RangeError if `nowMs` goes backwards.
   */
  forceExpire(nowMs: number, key: string): boolean {
    this.advance(nowMs, 'forceExpire');
    if (!this.live(nowMs, key)) return false;
    this.write(nowMs, key, null);
    return true;
  }

  /**
   * Fault "server clock jumps forward by `jumpMs`" (integer >= 0; semantics.md: expiry is by wall
   * clock, so a jump expires keys early). Every key whose expiry falls within the jump (or was
   * already due) expires now; every other key loses `jumpMs` of its remaining TTL, and TTLs set
   * later run normally. Returns the expired keys, sorted. The replica's clock does not jump.
   * Throws RangeError if `nowMs` goes backwards or `jumpMs` is not an integer >= 0.
   */
  clockJump(nowMs: number, jumpMs: number): string[] {
    if (!Number.isSafeInteger(jumpMs) || jumpMs < 0) {
      throw new RangeError(`LeaseStore.clockJump: jumpMs must be an integer >= 0, got ${jumpMs}`);
    }
    this.advance(nowMs, 'clockJump');
    this.serverClockOffsetMs += jumpMs;
    return this.removeExpired(nowMs);
  }

  /**
   * Fault "Redis failover": the primary dies and a replica `replicationLagMs` behind is promoted.
   * Every write after `nowMs - replicationLagMs` is lost; keys keep their absolute expiry, read
   * against the new primary's (unjumped) clock. Returns, sorted, the keys whose value changed,
   * vanished or reappeared as seen at `nowMs` (a TTL-only difference, e.g. a lost extension, takes
   * effect but is not listed). Throws RangeError if `nowMs` goes backwards.
   */
  failover(nowMs: number): string[] {
    this.advance(nowMs, 'failover');
    const before = this.liveValues(nowMs, this.keys, this.serverClockOffsetMs);
    const after = this.liveValues(nowMs, this.replica, 0);
    const changed = [...new Set([...before.keys(), ...after.keys()])].filter((k) => before.get(k) !== after.get(k));
    this.keys = new Map([...this.replica].filter(([k]) => after.has(k)).map(([k, s]) => [k, copyState(s)]));
    this.replica = new Map([...this.keys].map(([k, s]) => [k, copyState(s)]));
    this.log = [];
    this.serverClockOffsetMs = 0;
    return changed.sort();
  }

  /**
   * Inspector view at `nowMs` (read-only; does not advance time): live keys sorted by name, with
   * `value`, `expiresAtMs` (virtual ms; null = no TTL) and `pttlMs` (remaining ms, -1 = no TTL,
   * as PTTL). Throws RangeError if `nowMs` is earlier than the last time seen.
   */
  entries(nowMs: number): { key: string; value: string; expiresAtMs: number | null; pttlMs: number }[] {
    checkTime(nowMs, 'entries');
    this.checkNotBackwards(nowMs, 'entries');
    const serverNowMs = this.serverNow(nowMs);
    return [...this.keys.keys()].sort().flatMap((key) => {
      const s = this.keys.get(key) as KeyState;
      if (s.expiresAtServerMs !== null && s.expiresAtServerMs <= serverNowMs) return [];
      const expiresAtMs = s.expiresAtServerMs === null ? null : s.expiresAtServerMs - this.serverClockOffsetMs;
      return [{ key, value: s.value, expiresAtMs, pttlMs: expiresAtMs === null ? -1 : expiresAtMs - nowMs }];
    });
  }

  /** Deep, JSON-serialisable copy of the whole store (primary, replica, pending writes, clocks). */
  snapshot(): LeaseStoreSnapshot {
    return {
      version: 1,
      replicationLagMs: this.replicationLagMs,
      lastNowMs: this.lastNowMs,
      serverClockOffsetMs: this.serverClockOffsetMs,
      keys: toKeySnapshots(this.keys),
      replicaKeys: toKeySnapshots(this.replica),
      pendingWrites: this.log.map((e) => ({ atMs: e.atMs, key: e.key, state: e.state && copyState(e.state) })),
    };
  }

  /**
   * Rebuilds a store from `snapshot()` output (deep copy; the snapshot is not retained).
   * Throws TypeError if the snapshot version is not 1, RangeError for a bad lag.
   */
  static fromSnapshot(s: LeaseStoreSnapshot): LeaseStore {
    if (s.version !== 1) throw new TypeError(`LeaseStore.fromSnapshot: unsupported snapshot version ${String(s.version)}`);
    const store = new LeaseStore({ replicationLagMs: s.replicationLagMs });
    store.lastNowMs = s.lastNowMs;
    store.serverClockOffsetMs = s.serverClockOffsetMs;
    store.keys = fromKeySnapshots(s.keys);
    store.replica = fromKeySnapshots(s.replicaKeys);
    store.log = s.pendingWrites.map((e) => ({ atMs: e.atMs, key: e.key, state: e.state && copyState(e.state) }));
    return store;
  }

  // ---- time, expiry and replication ----

  private serverNow(nowMs: number): number {
    return nowMs + this.serverClockOffsetMs;
  }

  private checkNotBackwards(nowMs: number, method: string): void {
    if (this.lastNowMs !== null && nowMs < this.lastNowMs) {
      throw new RangeError(
        `LeaseStore.${method}: virtual time went backwards (nowMs ${nowMs} < ${this.lastNowMs} already seen)`,
      );
    }
  }

  /** Validates and records `nowMs`, then folds writes older than the lag window into the replica. */
  private advance(nowMs: number, method: string): void {
    checkTime(nowMs, method);
    this.checkNotBackwards(nowMs, method);
    this.lastNowMs = nowMs;
    const cutoffMs = nowMs - this.replicationLagMs;
    let n = 0;
    for (const e of this.log) {
      if (e.atMs > cutoffMs) break;
      if (e.state) this.replica.set(e.key, copyState(e.state));
      else this.replica.delete(e.key);
      n++;
    }
    if (n > 0) this.log.splice(0, n);
    // The replica's clock never jumps: a key expired by nowMs stays invisible to any later failover.
    for (const [k, s] of this.replica) {
      if (s.expiresAtServerMs !== null && s.expiresAtServerMs <= nowMs) this.replica.delete(k);
    }
  }

  /** Sets `key` to `state` (null = remove) on the primary and logs the write for the replica. */
  private write(nowMs: number, key: string, state: KeyState | null): void {
    if (state) this.keys.set(key, state);
    else this.keys.delete(key);
    this.log.push({ atMs: nowMs, key, state: state && copyState(state) });
  }

  /** Lazy expiry: the key's state if live at `nowMs`; an expired key is removed (and replicated) first. */
  private live(nowMs: number, key: string): KeyState | undefined {
    const s = this.keys.get(key);
    if (s && s.expiresAtServerMs !== null && s.expiresAtServerMs <= this.serverNow(nowMs)) {
      this.write(nowMs, key, null);
      return undefined;
    }
    return s;
  }

  private removeExpired(nowMs: number): string[] {
    const serverNowMs = this.serverNow(nowMs);
    const due = [...this.keys]
      .filter(([, s]) => s.expiresAtServerMs !== null && s.expiresAtServerMs <= serverNowMs)
      .map(([k]) => k)
      .sort();
    for (const k of due) this.write(nowMs, k, null);
    return due;
  }

  private liveValues(nowMs: number, m: ReadonlyMap<string, KeyState>, offsetMs: number): Map<string, string> {
    const out = new Map<string, string>();
    for (const [k, s] of m) {
      if (s.expiresAtServerMs === null || s.expiresAtServerMs > nowMs + offsetMs) out.set(k, s.value);
    }
    return out;
  }

  // ---- commands ----

  /** SET (Redis docs "SET"): option conflicts, then PX validation, then NX/XX, then the write. */
  private set(nowMs: number, cmd: Extract<RedisCmd, { op: 'SET' }>): RedisReply {
    if ((cmd.nx && cmd.xx) || (cmd.pxMs !== undefined && cmd.keepTtl)) return err(SYNTAX);
    if (cmd.pxMs !== undefined) {
      const e = checkMs(cmd.pxMs, this.serverNow(nowMs), 'set', true);
      if (e) return err(e);
    }
    const current = this.live(nowMs, cmd.key);
    if ((cmd.nx && current) || (cmd.xx && !current)) return { kind: 'nil' };
    let expiresAtServerMs: number | null = null; // a plain SET discards any previous TTL
    if (cmd.pxMs !== undefined) expiresAtServerMs = this.serverNow(nowMs) + cmd.pxMs;
    else if (cmd.keepTtl && current) expiresAtServerMs = current.expiresAtServerMs;
    this.write(nowMs, cmd.key, { value: cmd.value, expiresAtServerMs });
    return { kind: 'ok' };
  }

  /** DEL (Redis docs "DEL"): the number of keys removed; deletes whoever holds the key. */
  private del(nowMs: number, keys: readonly string[]): RedisReply {
    if (keys.length === 0) return err("ERR wrong number of arguments for 'del' command");
    let n = 0;
    for (const k of keys) {
      if (this.live(nowMs, k)) {
        this.write(nowMs, k, null);
        n++;
      }
    }
    return int(n);
  }

  /** PEXPIRE (Redis docs "EXPIRE"): 0 if missing; a time already past deletes the key (reply 1). */
  private pexpire(nowMs: number, key: string, ms: number): RedisReply {
    const s = this.live(nowMs, key);
    if (!s) return int(0);
    if (ms <= 0) this.write(nowMs, key, null);
    else this.write(nowMs, key, { value: s.value, expiresAtServerMs: this.serverNow(nowMs) + ms });
    return int(1);
  }

  /** PTTL (Redis docs "PTTL"): -2 missing, -1 no TTL, else remaining ms (>= 1 in this model). */
  private pttl(nowMs: number, key: string): number {
    const s = this.live(nowMs, key);
    if (!s) return -2;
    return s.expiresAtServerMs === null ? -1 : s.expiresAtServerMs - this.serverNow(nowMs);
  }

  /** INCR (Redis docs "INCR"): missing → 1; keeps any TTL; int64 arithmetic; errors as Redis. */
  private incr(nowMs: number, key: string): RedisReply {
    const s = this.live(nowMs, key);
    const current = s ? parseInt64(s.value) : 0n;
    if (current === null) return err(NOT_INTEGER);
    if (current === INT64_MAX) return err(OVERFLOW);
    const next = current + 1n;
    this.write(nowMs, key, { value: next.toString(), expiresAtServerMs: s ? s.expiresAtServerMs : null });
    return int(Number(next));
  }

  /**
   * EVAL COMPARE_AND_EXTEND_SCRIPT: 0 unless the key holds `token`; then PEXPIRE (a bad `ms` is a
   * script error, named by the script's SHA-1 as Redis 7.0 does).
   */
  private compareAndExtend(nowMs: number, key: string, token: string, ms: number): RedisReply {
    if (this.live(nowMs, key)?.value !== token) return int(0);
    const e = checkMs(ms, this.serverNow(nowMs), 'pexpire', false);
    if (e) return err(`${e} script: ${COMPARE_AND_EXTEND_SHA1}, on @user_script:1.`);
    return this.pexpire(nowMs, key, ms);
  }
}
