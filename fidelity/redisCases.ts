/**
 * Hand-written Redis sequences for the lease rules of the project's semantics notes ("The semantics Lockscope must reproduce"). Timed cases use
 * short real TTLs (100–450 ms) and keep every command at least 50 ms away from an expiry instant.
 */
import type { RedisCmd } from '../src/sim/resources/redisTypes';
import type { RedisCase, RedisOp } from './types';

const at = (atMs: number, cmd: RedisCmd, expect?: string): RedisOp => (expect === undefined ? { atMs, cmd } : { atMs, cmd, expect });
const now = (cmd: RedisCmd, expect?: string): RedisOp => at(0, cmd, expect);
const set = (key: string, value: string, opts: Partial<Extract<RedisCmd, { op: 'SET' }>> = {}): RedisCmd => ({ op: 'SET', key, value, ...opts });
const get = (key: string): RedisCmd => ({ op: 'GET', key });
const pttl = (key: string): RedisCmd => ({ op: 'PTTL', key });
const del = (...keys: string[]): RedisCmd => ({ op: 'DEL', keys });
const cad = (key: string, token: string): RedisCmd => ({ op: 'COMPARE_AND_DELETE', key, token });
const cae = (key: string, token: string, ms: number): RedisCmd => ({ op: 'COMPARE_AND_EXTEND', key, token, ms });

export const REDIS_CASES: readonly RedisCase[] = [
  {
    name: 'SET NX PX: OK, then nil while the key exists', primitive: 'Redis strings/TTL',
    ops: [
      now(set('lease', 'a', { nx: true, pxMs: 60_000 }), 'OK'),
      now(set('lease', 'b', { nx: true, pxMs: 60_000 }), '(nil)'),
      now(get('lease'), '"a"'),
      now(pttl('lease'), '(integer) 60000'),
      now(set('lease', 'b', { xx: true }), 'OK'),
      now(set('other', 'b', { xx: true }), '(nil)'),
    ],
  },
  {
    name: 'a plain SET discards the TTL (the lock becomes permanent); KEEPTTL keeps it', primitive: 'Redis strings/TTL',
    ops: [
      now(set('lease', 'a', { nx: true, pxMs: 60_000 }), 'OK'),
      now(set('lease', 'a'), 'OK'),
      now(pttl('lease'), '(integer) -1'),
      now(set('lease', 'a', { pxMs: 90_000 }), 'OK'),
      now(set('lease', 'b', { keepTtl: true }), 'OK'),
      now(pttl('lease'), '(integer) 90000'),
      now(get('lease'), '"b"'),
    ],
  },
  {
    name: 'PTTL -1 / -2, PEXPIRE on a missing key 0, DEL counts keys', primitive: 'Redis strings/TTL',
    ops: [
      now(pttl('missing'), '(integer) -2'),
      now({ op: 'PEXPIRE', key: 'missing', ms: 1_000 }, '(integer) 0'),
      now(set('k', 'v'), 'OK'),
      now(pttl('k'), '(integer) -1'),
      now({ op: 'PEXPIRE', key: 'k', ms: 45_000 }, '(integer) 1'),
      now(pttl('k'), '(integer) 45000'),
      now(set('k2', 'v'), 'OK'),
      now(del('k', 'k2', 'missing'), '(integer) 2'),
      now(del('k'), '(integer) 0'),
      now(set('k', 'v'), 'OK'),
      now({ op: 'PEXPIRE', key: 'k', ms: 0 }, '(integer) 1'),
      now(get('k'), '(nil)'),
      now(set('k', 'v'), 'OK'),
      now({ op: 'PEXPIRE', key: 'k', ms: -5 }, '(integer) 1'),
      now(pttl('k'), '(integer) -2'),
    ],
  },
  {
    name: 'INCR: a counter for fencing tokens; keeps the TTL; errors on non-integers and overflow', primitive: 'Redis strings/TTL',
    ops: [
      now({ op: 'INCR', key: 'fence' }, '(integer) 1'),
      now({ op: 'INCR', key: 'fence' }, '(integer) 2'),
      now(set('fence', '32'), 'OK'),
      now({ op: 'INCR', key: 'fence' }, '(integer) 33'),
      now(set('fence', '5', { pxMs: 60_000 }), 'OK'),
      now({ op: 'INCR', key: 'fence' }, '(integer) 6'),
      now(pttl('fence'), '(integer) 60000'),
      now(set('fence', 'abc'), 'OK'),
      now({ op: 'INCR', key: 'fence' }, '(error) ERR value is not an integer or out of range'),
      now(set('fence', '9223372036854775807'), 'OK'),
      now({ op: 'INCR', key: 'fence' }, '(error) ERR increment or decrement would overflow'),
      now(set('fence', '007'), 'OK'),
      now({ op: 'INCR', key: 'fence' }, '(error) ERR value is not an integer'),
    ],
  },
  {
    name: 'SET argument errors', primitive: 'Redis strings/TTL',
    ops: [
      now(set('k', 'v', { pxMs: 0 }), "(error) ERR invalid expire time in 'set' command"),
      now(set('k', 'v', { pxMs: -1 }), "(error) ERR invalid expire time in 'set' command"),
      now(set('k', 'v', { nx: true, xx: true }), '(error) ERR syntax error'),
      now(set('k', 'v', { pxMs: 100, keepTtl: true }), '(error) ERR syntax error'),
      now(del(), "(error) ERR wrong number of arguments for 'del' command"),
      now(get('k'), '(nil)'),
    ],
  },
  {
    name: 'compare-and-delete: only the owner’s token deletes', primitive: 'Redis scripts',
    ops: [
      now(set('lease', 'A', { nx: true, pxMs: 60_000 }), 'OK'),
      now(cad('lease', 'B'), '(integer) 0'),
      now(get('lease'), '"A"'),
      now(cad('lease', 'A'), '(integer) 1'),
      now(cad('lease', 'A'), '(integer) 0'),
      now(get('lease'), '(nil)'),
    ],
  },
  {
    name: 'compare-and-extend: extends the owner’s lease; 0 for another token; script error for a bad ms', primitive: 'Redis scripts',
    ops: [
      now(set('lease', 'A', { nx: true, pxMs: 60_000 }), 'OK'),
      now(cae('lease', 'A', 90_000), '(integer) 1'),
      now(pttl('lease'), '(integer) 90000'),
      now(cae('lease', 'B', 10_000), '(integer) 0'),
      now(pttl('lease'), '(integer) 90000'),
      now(cae('lease', 'A', 1.5), '(error) ERR value is not an integer or out of range script: 36e94d1c6e02fcefaa7ee5d79eee614dbac55f10'),
      now(cae('lease', 'A', 0), '(integer) 1'),
      now(get('lease'), '(nil)'),
      now(cae('lease', 'A', 1_000), '(integer) 0'),
    ],
  },
  {
    name: 'expiry: a key with PX 100 is there at 50 ms and gone at 150 ms', primitive: 'Redis expiry (timed)',
    ops: [
      at(0, set('lease', 'A', { nx: true, pxMs: 100 }), 'OK'),
      at(50, get('lease'), '"A"'),
      at(50, set('lease', 'B', { nx: true, pxMs: 100 }), '(nil)'),
      at(150, get('lease'), '(nil)'),
      at(150, pttl('lease'), '(integer) -2'),
      at(150, set('lease', 'B', { nx: true, pxMs: 10_000 }), 'OK'),
    ],
  },
  {
    name: 'plain DEL after expiry deletes the successor’s lease; a third worker acquires', primitive: 'Redis expiry (timed)',
    ops: [
      at(0, set('lease', 'A', { nx: true, pxMs: 150 }), 'OK'),
      at(100, set('lease', 'B', { nx: true, pxMs: 10_000 }), '(nil)'),
      at(200, set('lease', 'B', { nx: true, pxMs: 10_000 }), 'OK'),
      at(300, del('lease'), '(integer) 1'),
      at(300, set('lease', 'C', { nx: true, pxMs: 10_000 }), 'OK'),
      at(300, cad('lease', 'B'), '(integer) 0'),
      at(300, get('lease'), '"C"'),
    ],
  },
  {
    name: 'compare-and-extend fails once the lease expired or changed owner', primitive: 'Redis expiry (timed)',
    ops: [
      at(0, set('lease', 'A', { nx: true, pxMs: 150 }), 'OK'),
      at(100, cae('lease', 'A', 150), '(integer) 1'),
      at(200, get('lease'), '"A"'),
      at(200, pttl('lease'), '(integer) 50'),
      at(300, cae('lease', 'A', 10_000), '(integer) 0'),
      at(300, pttl('lease'), '(integer) -2'),
      at(300, set('lease', 'B', { nx: true, pxMs: 10_000 }), 'OK'),
      at(300, cae('lease', 'A', 10_000), '(integer) 0'),
      at(300, cad('lease', 'A'), '(integer) 0'),
      at(300, get('lease'), '"B"'),
    ],
  },
  {
    name: 'a renewal with plain SET makes the lease permanent; PEXPIRE shortens a TTL', primitive: 'Redis expiry (timed)',
    ops: [
      at(0, set('lease', 'A', { nx: true, pxMs: 150 }), 'OK'),
      at(100, set('lease', 'A'), 'OK'),
      at(300, get('lease'), '"A"'),
      at(300, pttl('lease'), '(integer) -1'),
      at(300, { op: 'PEXPIRE', key: 'lease', ms: 50 }, '(integer) 1'),
      at(400, get('lease'), '(nil)'),
      at(400, { op: 'INCR', key: 'fence' }, '(integer) 1'),
    ],
  },
  {
    name: 'renewal by plain PEXPIRE after expiry extends the successor’s lease (no owner check); compare-and-extend refuses', primitive: 'Redis renewal commands (timed)',
    ops: [
      at(0, set('lease', 'A', { nx: true, pxMs: 150 }), 'OK'),
      at(200, set('lease', 'B', { nx: true, pxMs: 200 }), 'OK'),
      at(250, { op: 'PEXPIRE', key: 'lease', ms: 400 }, '(integer) 1'),
      at(250, get('lease'), '"B"'),
      at(450, get('lease'), '"B"'),
      at(450, pttl('lease'), '(integer) 200'),
      at(450, cae('lease', 'A', 400), '(integer) 0'),
      at(700, get('lease'), '(nil)'),
      at(700, { op: 'PEXPIRE', key: 'lease', ms: 400 }, '(integer) 0'),
    ],
  },
  {
    name: 'renewal by SET re-acquires after a gap and overwrites a successor’s key', primitive: 'Redis renewal commands (timed)',
    ops: [
      at(0, set('lease', 'A', { nx: true, pxMs: 150 }), 'OK'),
      at(200, get('lease'), '(nil)'),
      at(200, set('lease', 'A', { pxMs: 200 }), 'OK'),
      at(250, pttl('lease'), '(integer) 150'),
      at(250, set('lease', 'B', { nx: true, pxMs: 10_000 }), '(nil)'),
      at(450, set('lease', 'B', { nx: true, pxMs: 10_000 }), 'OK'),
      at(450, set('lease', 'A'), 'OK'),
      at(450, get('lease'), '"A"'),
      at(450, pttl('lease'), '(integer) -1'),
      at(450, cad('lease', 'B'), '(integer) 0'),
    ],
  },
];
