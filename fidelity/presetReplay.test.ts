import { describe, expect, it } from 'vitest';
import { prefixRedisKeys, splitCliArgs } from './presetReplay';
import { PRESETS, buildTranscript, runScenario } from '../src/sim/index';
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

describe('the preset replay replays the transcript a reader gets', () => {
  it('every redis-cli line of every preset\'s transcript splits, as redis-cli splits it, into the argv a client sends', () => {
    let lines = 0;
    for (const p of PRESETS) {
      for (const v of ['withoutFix', 'withFix'] as const) {
        for (const e of buildTranscript(runScenario(p[v])).entries) {
          if (e.kind !== 'redis') continue;
          lines += 1;
          expect(splitCliArgs(e.line)).toEqual(e.argv);
        }
      }
    }
    expect(lines).toBeGreaterThan(100);
  });
});
