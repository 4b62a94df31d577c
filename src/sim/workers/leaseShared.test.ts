// gaveUpReason: the outcome of a lock client that gave up says what its last try found.
import { describe, expect, it } from 'vitest';
import { gaveUpReason } from './leaseShared';

describe('gaveUpReason', () => {
  it.each([
    [3, { kind: 'taken' } as const, 'lease:j was still taken after 3 tries'],
    [1, { kind: 'taken' } as const, 'lease:j was still taken after 1 try'],
    [2, { kind: 'noReply' } as const, 'its last of 2 tries got no reply from the lease store'],
    [1, { kind: 'noReply' } as const, 'its only try got no reply from the lease store'],
    [2, { kind: 'leaseGone' } as const, 'its last of 2 tries found its own lease gone'],
    [1, { kind: 'error', message: 'READONLY You can\'t write against a read only replica.' } as const, 'its only try failed (READONLY You can\'t write against a read only replica.)'],
  ])('%i tries, the last %j', (tries, last, words) => {
    expect(gaveUpReason('lease:j', tries, 'the lease store', last)).toBe(words);
  });
});
