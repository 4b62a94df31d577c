import { Destination } from './destination';
import type { DestinationConfig } from '../scenario/schema';

const cfg = (over: Partial<DestinationConfig> = {}): DestinationConfig => ({ kind: 'file', target: 'exports/x.csv', checksFencing: false, honoursIdempotencyKeys: false, ...over });

describe('Destination', () => {
  it('a file upload is performed when it completes; overlapping uploads are both accepted without checks', () => {
    const d = new Destination(cfg());
    const a = d.begin(0, 'A', 33, null);
    const b = d.begin(5, 'B', 34, null);
    expect(a.status).toBe('inFlight');
    expect(a.performed).toBe(false);
    d.finish(10, a.id);
    d.finish(20, b.id);
    expect(d.allWrites().map((w) => [w.status, w.performed])).toEqual([['accepted', true], ['accepted', true]]);
  });

  it('with fencing, a token lower than the highest accepted is rejected at once (409)', () => {
    const d = new Destination(cfg({ checksFencing: true }));
    d.finish(1, d.begin(0, 'B', 34, null).id);
    const stale = d.begin(2, 'A', 33, null);
    expect(stale.status).toBe('rejected');
    expect(stale.reply).toBe('409 Conflict: stale fencing token 33 (highest accepted 34)');
    expect(d.highestTokenAccepted()).toBe(34);
  });

  it('with fencing, an upload overtaken by a newer token during the upload is rejected at the end', () => {
    const d = new Destination(cfg({ checksFencing: true }));
    const a = d.begin(0, 'A', 33, null);
    d.begin(1, 'B', 34, null);
    const end = d.finish(2, a.id);
    expect(end.status).toBe('rejected');
    expect(end.performed).toBe(false);
  });

  it('an equal token (a retry by the same holder) is accepted', () => {
    const d = new Destination(cfg({ checksFencing: true }));
    d.finish(1, d.begin(0, 'A', 33, null).id);
    expect(d.begin(2, 'A', 33, null).status).toBe('inFlight');
  });

  it('an API call is performed when received; a repeated idempotency key is replayed without a new effect', () => {
    const d = new Destination(cfg({ kind: 'api', target: 'POST /v1/charges', honoursIdempotencyKeys: true }));
    const first = d.begin(0, 'A', null, 'charge-42');
    expect(first.performed).toBe(true);
    expect(first.reply).toBe('201 Created');
    const again = d.begin(5, 'A', null, 'charge-42');
    expect(again.status).toBe('deduplicated');
    expect(again.performed).toBe(false);
    expect(again.reply).toMatch(/replayed write #1/);
  });

  it('an API that ignores idempotency keys performs the effect twice', () => {
    const d = new Destination(cfg({ kind: 'api', target: 'POST /v1/charges' }));
    d.begin(0, 'A', null, 'charge-42');
    d.begin(5, 'A', null, 'charge-42');
    expect(d.allWrites().filter((w) => w.performed)).toHaveLength(2);
  });

  it('a crash mid-upload discards it; a crash after an API call was received keeps the effect', () => {
    const f = new Destination(cfg());
    expect(f.abort(3, f.begin(0, 'A', null, null).id).status).toBe('aborted');
    const api = new Destination(cfg({ kind: 'api', target: 'POST /v1/charges' }));
    const w = api.abort(3, api.begin(0, 'A', null, null).id);
    expect(w.performed).toBe(true);
  });

  it('renders the request a user would send', () => {
    expect(new Destination(cfg()).renderRequest(33, 'k')).toBe('PUT exports/x.csv Fencing-Token: 33 Idempotency-Key: k');
    expect(new Destination(cfg({ kind: 'api', target: 'POST /v1/emails' })).renderRequest(null, null)).toBe('POST /v1/emails');
  });
});
