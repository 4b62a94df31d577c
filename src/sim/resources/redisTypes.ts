/**
 * Typed Redis commands and replies of the simulated lease store.
 *
 * The model never parses Redis commands: workers build typed `RedisCmd`s, `renderRedis` turns
 * each into the literal line a user would type into `redis-cli` (and `redisArgv` into the argv a
 * client library sends), `LeaseStore.execute` gives the reply Redis 7.0 would give, and
 * `renderRedisReply` prints that reply the way `redis-cli` does.
 *
 * Pure module: no DOM, no clock, no randomness, no Node built-ins.
 */

/**
 * A Redis command the lease store understands. Follows the Redis command reference pages
 * SET, GET, DEL, PEXPIRE, PTTL, INCR and EVAL, and the "Distributed Locks with Redis" page for the
 * two scripts.
 *
 * - `SET key value [NX|XX] [PX pxMs|KEEPTTL]`: `nx` = only if missing, `xx` = only if present;
 *   `pxMs` = TTL in milliseconds (must be a positive integer); `keepTtl` keeps the existing TTL.
 *   Without `pxMs`/`keepTtl` a successful SET removes any TTL. `nx`+`xx` or `pxMs`+`keepTtl` is
 *   `ERR syntax error`, as in Redis.
 * - `DEL key [key …]`: `keys` must be non-empty (Redis: wrong number of arguments).
 * - `PEXPIRE key ms`: TTL in milliseconds; `ms <= 0` deletes the key.
 * - `COMPARE_AND_DELETE`: `EVAL COMPARE_AND_DELETE_SCRIPT 1 key token` (safe release).
 * - `COMPARE_AND_EXTEND`: `EVAL COMPARE_AND_EXTEND_SCRIPT 1 key token ms` (safe extension, `ms` in
 *   milliseconds).
 */
export type RedisCmd =
  | { op: 'SET'; key: string; value: string; nx?: boolean; xx?: boolean; pxMs?: number; keepTtl?: boolean }
  | { op: 'GET'; key: string }
  | { op: 'DEL'; keys: readonly string[] }
  | { op: 'PEXPIRE'; key: string; ms: number }
  | { op: 'PTTL'; key: string }
  | { op: 'INCR'; key: string }
  | { op: 'COMPARE_AND_DELETE'; key: string; token: string }
  | { op: 'COMPARE_AND_EXTEND'; key: string; token: string; ms: number };

/**
 * The message of the reply a client gets when the lease store cannot be reached (a partition):
 * no reply arrives and the client's command times out. The command may or may not have run.
 */
export const REDIS_TIMEOUT_MESSAGE = 'connection timed out (cut off from the lease store)';

/**
 * A RESP reply, as `redis-cli` shows it:
 * `ok` → `OK`, `nil` → `(nil)`, `int` → `(integer) 1`, `bulk` → `"7f3a"`,
 * `error` → `(error) ERR value is not an integer or out of range` (`message` excludes `(error) `).
 * `int.value` is a JS number: exact up to 2^53 (INCR counters beyond that lose precision).
 */
export type RedisReply =
  | { kind: 'ok' }
  | { kind: 'nil' }
  | { kind: 'int'; value: number }
  | { kind: 'bulk'; value: string }
  | { kind: 'error'; message: string };

/**
 * The compare-and-delete (safe release) Lua script from the Redis page "Distributed Locks with
 * Redis": deletes `KEYS[1]` only if it still holds `ARGV[1]` (reply 1), else replies 0.
 * Redis 8.4's `DELEX key IFEQ value` (and Valkey 9's `DELIFEQ`) is the native equivalent; Redis
 * 7.0 has neither, so the script is what the model shows.
 */
export const COMPARE_AND_DELETE_SCRIPT =
  'if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("del",KEYS[1]) else return 0 end';

/**
 * The compare-and-extend (safe extension) Lua script: if `KEYS[1]` still holds `ARGV[1]`, runs
 * `PEXPIRE KEYS[1] ARGV[2]` (reply 1), else replies 0 — so it fails once the lease expired or
 * changed owner. Follows "Distributed Locks with Redis" (extending a lock).
 */
export const COMPARE_AND_EXTEND_SCRIPT =
  'if redis.call("get",KEYS[1]) == ARGV[1] then return redis.call("pexpire",KEYS[1],ARGV[2]) else return 0 end';

/** Decimal form Redis would receive for a numeric argument (`30000`; non-integers stay visible). */
function num(n: number): string {
  return String(n);
}

function setArgv(cmd: Extract<RedisCmd, { op: 'SET' }>): string[] {
  const argv = ['SET', cmd.key, cmd.value];
  if (cmd.nx) argv.push('NX');
  if (cmd.xx) argv.push('XX');
  if (cmd.pxMs !== undefined) argv.push('PX', num(cmd.pxMs));
  if (cmd.keepTtl) argv.push('KEEPTTL');
  return argv;
}

/**
 * The argv a client library sends for `cmd`, e.g. `['SET','lease:export','7f3a','NX','PX','30000']`
 * or `['EVAL', COMPARE_AND_EXTEND_SCRIPT, '1', 'lease:export', '7f3a', '30000']`.
 * SET options come in the order NX, XX, PX, KEEPTTL. Never throws.
 */
export function redisArgv(cmd: RedisCmd): string[] {
  switch (cmd.op) {
    case 'SET':
      return setArgv(cmd);
    case 'GET':
      return ['GET', cmd.key];
    case 'DEL':
      return ['DEL', ...cmd.keys];
    case 'PEXPIRE':
      return ['PEXPIRE', cmd.key, num(cmd.ms)];
    case 'PTTL':
      return ['PTTL', cmd.key];
    case 'INCR':
      return ['INCR', cmd.key];
    case 'COMPARE_AND_DELETE':
      return ['EVAL', COMPARE_AND_DELETE_SCRIPT, '1', cmd.key, cmd.token];
    case 'COMPARE_AND_EXTEND':
      return ['EVAL', COMPARE_AND_EXTEND_SCRIPT, '1', cmd.key, cmd.token, num(cmd.ms)];
  }
}

/** UTF-8 bytes of a JS string (lone surrogates become U+FFFD, as TextEncoder does). */
function utf8Bytes(s: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    let cp = s.charCodeAt(i);
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < s.length) {
      const lo = s.charCodeAt(i + 1);
      if (lo >= 0xdc00 && lo <= 0xdfff) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        i++;
      }
    }
    if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
    if (cp < 0x80) out.push(cp);
    else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f));
    else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
    else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
  }
  return out;
}

const ESCAPES: Readonly<Record<number, string>> = {
  0x5c: '\\\\',
  0x22: '\\"',
  0x0a: '\\n',
  0x0d: '\\r',
  0x09: '\\t',
  0x07: '\\a',
  0x08: '\\b',
};

/**
 * Double-quoted form of `s` exactly as redis-cli prints a bulk string (`sdscatrepr`): `\\`, `\"`,
 * `\n`, `\r`, `\t`, `\a`, `\b`, printable ASCII as is, every other byte of the UTF-8 encoding as
 * `\xhh`. redis-cli's own argument splitter (`sdssplitargs`) reads the same form back.
 */
function quoteRepr(s: string): string {
  let out = '"';
  for (const b of utf8Bytes(s)) {
    const esc = ESCAPES[b];
    if (esc !== undefined) out += esc;
    else if (b >= 0x20 && b <= 0x7e) out += String.fromCharCode(b);
    else out += '\\x' + b.toString(16).padStart(2, '0');
  }
  return out + '"';
}

/** An argument as typed into redis-cli: bare if it is non-empty printable ASCII without quotes or backslashes. */
const quotedCache = new Map<string, string>();

function cliArg(arg: string): string {
  if (/^[\x21-\x7e]+$/.test(arg) && !/["'\\]/.test(arg)) return arg;
  // The Lua scripts are long and constant: quote each once (rendering is on the engine's hot path).
  if (arg.length < 40) return quoteRepr(arg);
  let q = quotedCache.get(arg);
  if (q === undefined) {
    q = quoteRepr(arg);
    if (quotedCache.size < 64) quotedCache.set(arg, q);
  }
  return q;
}

/**
 * The literal command as typed into redis-cli, e.g. `SET lease:export 7f3a NX PX 30000` or
 * `EVAL "if redis.call(\"get\",KEYS[1]) == ARGV[1] then … end" 1 lease:export 7f3a`.
 * Arguments that are empty or contain spaces, quotes, backslashes or non-printable / non-ASCII
 * characters are double-quoted with backslash escapes (redis-cli `sdssplitargs` syntax).
 * Never throws.
 */
export function renderRedis(cmd: RedisCmd): string {
  return redisArgv(cmd).map(cliArg).join(' ');
}

/**
 * A reply as redis-cli prints it on a terminal: `OK`, `(nil)`, `(integer) 1`, `"7f3a"` (quoted and
 * escaped like `sdscatrepr`), `(error) ERR value is not an integer or out of range`. Never throws.
 */
export function renderRedisReply(r: RedisReply): string {
  switch (r.kind) {
    case 'ok':
      return 'OK';
    case 'nil':
      return '(nil)';
    case 'int':
      return `(integer) ${r.value}`;
    case 'bulk':
      return quoteRepr(r.value);
    case 'error':
      return `(error) ${r.message}`;
  }
}
