import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ETCD_CASES, ETCD_REVOKE_SLACK_MS, etcdTimedArb, safeOps, type EtcdOp } from './etcd';
import { EtcdLockService, renderEtcdReply } from '../src/sim/resources/lockService';

/** The model's rendered replies to a case's ops (lease refs resolved in grant order, as the harness does). */
function modelReplies(ops: readonly EtcdOp[]): string[] {
  const s = new EtcdLockService();
  const ids = new Map<string, string>([['L0', '7fff0000deadbeef']]);
  return ops.map((op) => {
    const ref = (x: string): string => ids.get(x) ?? '7fff0000deadbeef';
    const c = op.cmd;
    const cmd = c.op === 'leaseKeepAlive' || c.op === 'leaseRevoke' ? { ...c, id: ref(c.id) } : c.op === 'txnAcquire' ? { ...c, lease: ref(c.lease) } : c;
    const r = s.execute(op.atMs, 'fid', cmd).reply;
    if (r.op === 'leaseGrant') ids.set(`L${ids.size}`, r.id);
    return renderEtcdReply(r);
  });
}

describe('the etcd fidelity cases (no server needed)', () => {
  it.each(ETCD_CASES.map((c) => [c.name, c] as const))('%s: keeps away from every expiry instant, and the model shows the rule it expects', (_, c) => {
    expect(safeOps(c.ops, c.marginMs ?? 150)).toEqual(c.ops);
    const replies = modelReplies(c.ops);
    c.ops.forEach((op, i) => {
      if (op.expect !== undefined) expect(replies[i], `op ${i}`).toMatch(new RegExp(`^${op.expect.replace(/[|()[\]]/g, '\\$&')}`));
    });
  });

  it('safeOps drops a request inside an expiry window, before or after it, and keeps the rest', () => {
    const ops: EtcdOp[] = [
      { atMs: 0, cmd: { op: 'leaseGrant', ttlS: 2 } },
      { atMs: 1000, cmd: { op: 'get', key: 'k' } },
      { atMs: 1900, cmd: { op: 'get', key: 'k' } },
      { atMs: 2000 + ETCD_REVOKE_SLACK_MS, cmd: { op: 'get', key: 'k' } },
      { atMs: 2000 + ETCD_REVOKE_SLACK_MS + 300, cmd: { op: 'get', key: 'k' } },
    ];
    expect(safeOps(ops, 300).map((o) => o.atMs)).toEqual([0, 1000, 3300]);
  });

  it('the timed generator leaves most requests in (the windows are a small part of the run)', () => {
    const samples = fc.sample(etcdTimedArb, { seed: 357165846 + 202, numRuns: 30 });
    const total = samples.reduce((n, xs) => n + xs.length, 0);
    const kept = samples.reduce((n, xs) => n + safeOps(xs.map((x) => ({ atMs: x.slot * 250, cmd: x.cmd })), 300).length, 0);
    expect(kept / total).toBeGreaterThan(0.6);
  });
});
