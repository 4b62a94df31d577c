// The reply texts a writer sees from the destination before and without an answer, pinned as
// text (destination.test.ts compares them with the exported constants, which any text passes).
import { describe, expect, it } from 'vitest';
import { Destination } from './destination';

describe('destination replies without an answer', () => {
  it('an API call in flight shows "(pending: no reply yet)", and "(no reply received: the caller crashed)" when its caller dies', () => {
    const d = new Destination({ kind: 'api', target: 'POST /v1/charges', checksFencing: false, honoursIdempotencyKeys: true });
    const w = d.begin(0, 'A', null, 'order-42');
    expect(w.reply).toBe('(pending: no reply yet)');
    expect(d.abort(5, w.id)).toMatchObject({ status: 'accepted', performed: true, reply: '(no reply received: the caller crashed)' });
  });
});
