import { Destination, NO_REPLY_CALLER_GONE, PENDING_REPLY } from './destination';
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
    expect(first.reply).toBe(PENDING_REPLY);
    expect(d.finish(2, first.id).reply).toBe('201 Created');
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

describe('Destination boundaries', () => {
  it('finish: a retry that reuses the accepted token completes (equal is not stale)', () => {
    const d = new Destination(cfg({ checksFencing: true }));
    expect(d.finish(10, d.begin(0, 'A', 33, null).id).status).toBe('accepted');
    const retry = d.begin(20, 'A', 33, null);
    const end = d.finish(30, retry.id);
    expect([end.status, end.performed, end.reply, end.endMs]).toEqual(['accepted', true, '200 OK (upload complete)', 30]);
    expect(d.highestTokenAccepted()).toBe(33);
  });

  it('finish: an upload overtaken by a token one higher is rejected with the newer token named', () => {
    const d = new Destination(cfg({ checksFencing: true }));
    const a = d.begin(0, 'A', 33, null);
    expect(d.begin(1, 'B', 34, null).status).toBe('inFlight');
    const end = d.finish(7, a.id);
    expect([end.status, end.performed, end.endMs, end.reply]).toEqual(['rejected', false, 7, '409 Conflict: stale fencing token 33 (a newer token 34 was accepted during the upload)']);
  });

  it('begin: a token one lower than the highest is rejected at once; the highest stays', () => {
    const d = new Destination(cfg({ checksFencing: true }));
    d.begin(0, 'B', 34, null);
    const stale = d.begin(5, 'A', 33, null);
    expect([stale.status, stale.endMs, stale.performed]).toEqual(['rejected', 5, false]);
    // Finishing an already rejected write changes nothing.
    expect(d.finish(9, stale.id)).toMatchObject({ status: 'rejected', endMs: 5, reply: '409 Conflict: stale fencing token 33 (highest accepted 34)' });
    expect(d.highestTokenAccepted()).toBe(34);
  });

  it('the highest token only rises: a lower one accepted without checks and a null one leave it alone', () => {
    const d = new Destination(cfg());
    expect(d.highestTokenAccepted()).toBeNull();
    d.begin(0, 'A', 33, null);
    expect(d.highestTokenAccepted()).toBe(33);
    d.begin(1, 'B', 35, null);
    d.begin(2, 'C', 34, null);
    d.begin(3, 'D', null, null);
    expect(d.highestTokenAccepted()).toBe(35);
    expect(d.allWrites().map((w) => w.status)).toEqual(['inFlight', 'inFlight', 'inFlight', 'inFlight']);
  });

  it('a checking store accepts a write without a token, and a first token when none was accepted', () => {
    const d = new Destination(cfg({ checksFencing: true }));
    expect(d.begin(0, 'A', 1, null).status).toBe('inFlight');
    expect(d.begin(1, 'B', null, null).status).toBe('inFlight');
    expect(d.finish(2, 2).status).toBe('accepted');
  });

  it('a store that does not check fencing accepts a lower token at begin and at finish', () => {
    const d = new Destination(cfg());
    const a = d.begin(0, 'A', 33, null);
    d.begin(1, 'B', 34, null);
    expect(d.finish(2, a.id).status).toBe('accepted');
    expect(d.begin(3, 'C', 30, null).status).toBe('inFlight');
  });

  it('write ids count from 1 in arrival order and finish/abort address them by id', () => {
    const d = new Destination(cfg());
    const ids = [d.begin(0, 'A', null, null), d.begin(1, 'B', null, null), d.begin(2, 'C', null, null)].map((w) => w.id);
    expect(ids).toEqual([1, 2, 3]);
    expect(d.finish(5, 2).worker).toBe('B');
    expect(d.abort(6, 3).worker).toBe('C');
    expect(d.allWrites().map((w) => [w.worker, w.status, w.endMs])).toEqual([['A', 'inFlight', null], ['B', 'accepted', 5], ['C', 'aborted', 6]]);
    expect(() => d.finish(7, 4)).toThrow('no destination write #4');
    expect(() => d.abort(7, 0)).toThrow('no destination write #0');
  });

  it('an idempotency key is remembered only by a store that honours keys, and only for a write it accepted', () => {
    const ignoring = new Destination(cfg({ kind: 'api', target: 'POST /v1/charges' }));
    ignoring.begin(0, 'A', null, 'k');
    expect(ignoring.begin(1, 'A', null, 'k').performed).toBe(true);
    const d = new Destination(cfg({ kind: 'api', target: 'POST /v1/charges', checksFencing: true, honoursIdempotencyKeys: true }));
    d.begin(0, 'B', 34, 'other');
    expect(d.begin(1, 'A', 33, 'k').status).toBe('rejected');
    // The rejected write did not record 'k': a retry with a fresh token performs the effect.
    const retry = d.begin(2, 'A', 35, 'k');
    expect([retry.status, retry.performed, retry.reply]).toEqual(['inFlight', true, PENDING_REPLY]);
    d.finish(3, retry.id);
    const replay = d.begin(3, 'A', 35, 'k');
    expect([replay.status, replay.performed, replay.endMs, replay.reply]).toEqual(['deduplicated', false, 3, '200 OK (replayed write #3: idempotency key seen, nothing performed)']);
    // A write without a key is never deduplicated.
    expect(d.begin(4, 'C', null, null).status).toBe('inFlight');
  });

  it('an upload in progress already claims its idempotency key: a repeat gets 409 (retry later) until it ends, then the replay', () => {
    // ../shared/semantics.md, "Idempotency keys while a request is in flight".
    const d = new Destination(cfg({ honoursIdempotencyKeys: true }));
    const first = d.begin(0, 'A', null, 'k');
    expect(first.reply).toBe(PENDING_REPLY);
    const early = d.begin(1, 'B', null, 'k');
    expect([early.status, early.performed, early.endMs]).toEqual(['conflict', false, 1]);
    expect(early.reply).toMatch(/^409 Conflict: a request with idempotency key k is still in progress \(write #1\); retry later$/);
    d.finish(5, first.id);
    const late = d.begin(5, 'B', null, 'k');
    expect([late.status, late.performed]).toEqual(['deduplicated', false]);
    expect(d.allWrites().filter((w) => w.performed)).toHaveLength(1);
  });

  it('an API call in flight: a repeat with its key gets 409 and performs nothing; no key or another key is not refused', () => {
    const d = new Destination(cfg({ kind: 'api', target: 'POST /v1/charges', honoursIdempotencyKeys: true }));
    const first = d.begin(0, 'A', null, 'k');
    expect(d.begin(1, 'B', null, 'k').status).toBe('conflict');
    expect(d.begin(1, 'C', null, 'other').status).toBe('inFlight');
    expect(d.begin(1, 'D', null, null).status).toBe('inFlight');
    d.finish(3, first.id);
    expect(d.begin(3, 'B', null, 'k').status).toBe('deduplicated');
    expect(d.allWrites().filter((w) => w.performed).map((w) => w.worker)).toEqual(['A', 'C', 'D']);
  });

  it('an API response completes the call without changing its effect or reply', () => {
    const d = new Destination(cfg({ kind: 'api', target: 'POST /v1/charges' }));
    const end = d.finish(4, d.begin(0, 'A', null, null).id);
    expect([end.status, end.performed, end.reply, end.endMs]).toEqual(['accepted', true, '201 Created', 4]);
  });

  it('a fencing API judges a call on receipt: a newer token accepted during the call does not turn its response into a 409 after the effect', () => {
    const d = new Destination(cfg({ kind: 'api', target: 'POST /v1/charges', checksFencing: true }));
    const a = d.begin(0, 'A', 33, null);
    d.begin(1, 'B', 34, null);
    const end = d.finish(2, a.id);
    expect([end.status, end.performed, end.reply]).toEqual(['accepted', true, '201 Created']);
    // A later call with the old token is stale at receipt and performs nothing.
    const late = d.begin(3, 'A', 33, null);
    expect([late.status, late.performed]).toEqual(['rejected', false]);
  });

  it('abort: a finished write is left as it is; an upload in flight is aborted; an API call received is accepted', () => {
    const f = new Destination(cfg());
    const done = f.begin(0, 'A', null, null);
    f.finish(3, done.id);
    expect(f.abort(5, done.id)).toMatchObject({ status: 'accepted', performed: true, endMs: 3, reply: '200 OK (upload complete)' });
    const cut = f.abort(6, f.begin(4, 'B', null, null).id);
    expect([cut.status, cut.performed, cut.endMs, cut.reply]).toEqual(['aborted', false, 6, 'upload aborted (connection closed)']);
    const api = new Destination(cfg({ kind: 'api', target: 'POST /v1/charges' }));
    const call = api.abort(2, api.begin(0, 'A', null, null).id);
    expect([call.status, call.performed, call.endMs, call.reply]).toEqual(['accepted', true, 2, NO_REPLY_CALLER_GONE]);
  });

  it('snapshot is a deep copy with the highest token', () => {
    const d = new Destination(cfg());
    d.begin(0, 'A', 7, null);
    const snap = d.snapshot();
    expect(snap).toEqual({ highestTokenAccepted: 7, writes: [{ id: 1, worker: 'A', startMs: 0, endMs: null, token: 7, idempotencyKey: null, status: 'inFlight', performed: false, reply: PENDING_REPLY }] });
    d.finish(1, 1);
    expect(snap.writes[0]!.status).toBe('inFlight');
  });

  it('renders a token without a key, and an API call with both', () => {
    expect(new Destination(cfg()).renderRequest(null, null)).toBe('PUT exports/x.csv');
    expect(new Destination(cfg()).renderRequest(5, null)).toBe('PUT exports/x.csv Fencing-Token: 5');
    expect(new Destination(cfg({ kind: 'api', target: 'POST /v1/charges' })).renderRequest(5, 'k')).toBe('POST /v1/charges Fencing-Token: 5 Idempotency-Key: k');
  });
});
