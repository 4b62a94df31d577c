// redis-cli's rendering of bytes that leaseStore.test.ts leaves open: the \r, \a and \b escapes
// (redis-cli --no-raw against redis-server 7.0.15: SET k "a\r\a\bz", GET k → "a\r\a\bz"), the
// first astral code point, and surrogates that do not pair (each becomes U+FFFD, as Node's UTF-8
// encoder gives: Buffer.from('a\udfff') = 61 ef bf bd), plus the text a cut-off client sees.
import { describe, expect, it } from 'vitest';
import { REDIS_TIMEOUT_MESSAGE, renderRedis, renderRedisReply } from './redisTypes';

describe('redis-cli bulk strings', () => {
  it.each<[string, string, string]>([
    ['carriage return, bell and backspace escapes', 'a\r\x07\bz', '"a\\r\\a\\bz"'],
    ['U+10000, the first four-byte code point', '\u{10000}', '"\\xf0\\x90\\x80\\x80"'],
    ['a character followed by a lone low surrogate', 'a\udfff', '"a\\xef\\xbf\\xbd"'],
    ['a high surrogate followed by U+E000 (not a low surrogate)', '\ud83d\ue000', '"\\xef\\xbf\\xbd\\xee\\x80\\x80"'],
    ['two low surrogates', '\udc00\udc00', '"\\xef\\xbf\\xbd\\xef\\xbf\\xbd"'],
  ])('%s', (_name, value, shown) => {
    expect(renderRedisReply({ kind: 'bulk', value })).toBe(shown);
    expect(renderRedis({ op: 'SET', key: 'k', value })).toBe(`SET k ${shown}`);
  });
});

describe('a client cut off from the lease store', () => {
  it('sees its command time out, named as a partition', () => {
    expect(renderRedisReply({ kind: 'error', message: REDIS_TIMEOUT_MESSAGE })).toBe('(error) connection timed out (cut off from the lease store)');
  });
});
