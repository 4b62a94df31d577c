import { describe, expect, it } from 'vitest';
import { deadlockVictims, prefixRedisKeys, splitCliArgs } from './presetReplay';
import { findPreset, runScenario } from '../src/sim/index';
import { redisArgv } from '../src/sim/resources/redisTypes';

describe('prefixRedisKeys: the preset replay isolates its keys by prefix, not by flushing a database', () => {
  it('prefixes exactly the key arguments of each command the model speaks', () => {
    expect(prefixRedisKeys(['SET', 'lease:export', '7f3a', 'NX', 'PX', '30000'], 'p:')).toEqual(['SET', 'p:lease:export', '7f3a', 'NX', 'PX', '30000']);
    expect(prefixRedisKeys(['GET', 'k'], 'p:')).toEqual(['GET', 'p:k']);
    expect(prefixRedisKeys(['DEL', 'a', 'b'], 'p:')).toEqual(['DEL', 'p:a', 'p:b']);
    expect(prefixRedisKeys(['INCR', 'fence'], 'p:')).toEqual(['INCR', 'p:fence']);
    const cad = redisArgv({ op: 'COMPARE_AND_DELETE', key: 'lease', token: 'tok' });
    expect(prefixRedisKeys(cad, 'p:')).toEqual([cad[0], cad[1], '1', 'p:lease', 'tok']);
    const cae = redisArgv({ op: 'COMPARE_AND_EXTEND', key: 'lease', token: 'tok', ms: 500 });
    expect(prefixRedisKeys(cae, 'p:').slice(2)).toEqual(['1', 'p:lease', 'tok', '500']);
  });

  it('refuses a command whose key positions it does not know', () => {
    expect(() => prefixRedisKeys(['FLUSHDB'], 'p:')).toThrow(/no key positions known for Redis command FLUSHDB/);
  });

  it('splits a redis-cli line with quoted arguments', () => {
    expect(splitCliArgs('SET "a b" "x\\"y"')).toEqual(['SET', 'a b', 'x"y']);
  });
});

describe('deadlockVictims: which replayed statements get the scenario\'s deadlock_timeout', () => {
  it('names the wait the trace ends with 40P01, and only that one', () => {
    const without = runScenario(findPreset('lock-order-deadlock')!.withoutFix).events;
    const victims = [...deadlockVictims(without)].map((id) => without.find((e) => e.id === id)!);
    expect(victims.map((e) => `${e.atMs} ${e.actor} ${e.command}`)).toEqual(['100 A SELECT pg_advisory_xact_lock(2)']);
    expect(deadlockVictims(runScenario(findPreset('lock-order-deadlock')!.withFix).events).size).toBe(0);
  });
});
