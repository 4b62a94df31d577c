/**
 * The etcd lock service of the model (`EtcdLockService`, src/sim/resources/lockService.ts) against
 * a real etcd 3.4 (Debian's `etcd-server`, which `scripts/ensure-services.sh` starts on
 * 127.0.0.1:2379; `ETCD_ENDPOINT` to point elsewhere). Summary row "etcd lock service".
 *
 * - Hand-written cases run the very lines the trace shows (`renderEtcd`: `etcdctl lease grant 10`,
 *   the `etcdctl txn <<< $'…'` here-string, …) through bash and Debian's `etcdctl`, and compare what
 *   etcdctl prints with the model's reply as the trace renders it (`renderEtcdReply`), lease ids
 *   mapped in grant order. After every step they also compare, over etcd's HTTP/JSON gateway, the
 *   store's revision and each key of the case (value, create and mod revision, version, lease)
 *   with the model's: the cases run one at a time and nothing else writes, so revisions compare
 *   exactly (the model starts at the server's revision).
 * - A cut-off client: the lines etcdctl prints when it cannot reach etcd, against the model's
 *   replies to a worker cut off by a partition.
 * - Generated sequences (fast-check): grants (TTL 1–3 s, or a minute untimed), keep-alives,
 *   revokes, acquire transactions, deletes and reads over two keys and up to three leases, through
 *   the HTTP gateway. Untimed ones run one at a time (revisions compared exactly); timed ones on a
 *   250 ms grid run concurrently, so the server's one revision counter interleaves them: there the
 *   revisions of a sequence's own writes (its puts, deletes and revokes, and the keys' create and mod
 *   revisions) must map one to one and in order onto the server's.
 *
 * Time: op `atMs` is virtual time for the model and real elapsed ms for the server. As for Redis
 * (redisHarness.ts), every command's send and reply times are measured against its virtual time,
 * and commands keep away from every lease's expiry instant: at least `marginMs` before it and at
 * least `ETCD_REVOKE_SLACK_MS` + `marginMs` after it, because etcd's lessor looks for expired
 * leases every 500 ms (the model revokes at the exact millisecond). A run whose lateness spread
 * reaches the margin is inconclusive and retried.
 */
import { spawn } from 'node:child_process';
import fc from 'fast-check';
import { ETCD_LEASE_NOT_FOUND, ETCD_TIMEOUT_MESSAGE, EtcdLockService, etcdError, oneLine, renderEtcd, renderEtcdReply, type EtcdCmd, type EtcdKv, type EtcdReply } from '../src/sim/resources/lockService';
import { formatDisagreement, formatFlake, runConfirmed } from './confirm';
import type { GeneratedReport } from './generated';
import type { CaseResult } from './types';

/** The etcd the suite compares with: its HTTP/JSON gateway, and the endpoint etcdctl is given. */
export const ETCD_ENDPOINT = process.env.ETCD_ENDPOINT ?? 'http://127.0.0.1:2379';

/** How long after a lease's expiry instant etcd may still hold its key: its lessor checks every 500 ms (measured here: at most about 520 ms). */
export const ETCD_REVOKE_SLACK_MS = 1000;

/** A lease the case refers to: `L1`, `L2`, `L3` = its first, second, third grant; `L0` = a lease never granted. */
type LeaseRef = 'L0' | 'L1' | 'L2' | 'L3';

/** One request at virtual time `atMs`; lease ids are `LeaseRef`s, keys unprefixed. `expect`: a prefix of the model's rendered reply (the rule the case shows). */
export interface EtcdOp {
  readonly atMs: number;
  readonly cmd: EtcdCmd;
  readonly expect?: string;
}

/** A sequence of requests. */
export interface EtcdCase {
  readonly name: string;
  readonly ops: readonly EtcdOp[];
  /** Distance (ms) every command keeps from an expiry instant, by construction; default 150. */
  readonly marginMs?: number;
}

/** A lease id never granted (not the model's, not this server's: etcd's ids carry the member id in their top 16 bits). */
const NEVER_GRANTED = '7fff0000deadbeef';

/** How far a run strayed from its virtual times (ms), over every etcd case. */
export const ETCD_TIMING = { maxSpreadMs: 0 };

/**
 * What the etcd runs compared (runs that agreed): requests by kind and reply (`txnAcquire
 * SUCCESS`, `leaseKeepAlive lease not found`, …), and the lock keys a lease took with it when it
 * ran out between two requests (the model's revision moved before a request).
 */
export const ETCD_STATS = { requests: 0, byReply: new Map<string, number>(), expiryDeletes: 0 };

function replyKind(r: EtcdReply): string {
  if (r.op === 'error') return `${r.of} ${r.message === ETCD_LEASE_NOT_FOUND ? 'lease not found' : r.message}`;
  if (r.op === 'txnAcquire') return `txnAcquire ${r.succeeded ? 'SUCCESS' : 'FAILURE'}`;
  if (r.op === 'del') return `del ${r.deleted}`;
  if (r.op === 'get') return `get ${r.kv === null ? 'none' : 'key'}`;
  return r.op;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
const unb64 = (s: string): string => Buffer.from(s, 'base64').toString('utf8');
/** etcd's int64 lease id (a decimal string in JSON) as etcdctl prints it: 16 hex digits. */
const hexId = (dec: string): string => BigInt(dec).toString(16).padStart(16, '0');
const decId = (hex: string): string => BigInt(`0x${hex}`).toString(10);

/** POSTs to the HTTP/JSON gateway (`/v3/...`). */
async function gateway(path: string, body: unknown): Promise<Record<string, unknown>> {
  const r = await fetch(`${ETCD_ENDPOINT}${path}`, { method: 'POST', body: JSON.stringify(body) });
  return (await r.json()) as Record<string, unknown>;
}

/** The server's version, or a problem in words. */
export async function checkEtcd(): Promise<{ version: string | null; problem: string | null }> {
  try {
    const r = await fetch(`${ETCD_ENDPOINT}/version`, { signal: AbortSignal.timeout(3000) });
    const v = (await r.json()) as { etcdserver?: string };
    await new Promise<void>((resolve, reject) => {
      const p = spawn('etcdctl', ['version'], { env: etcdctlEnv() });
      p.on('error', reject);
      p.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`etcdctl version exited with ${code}`))));
    });
    return { version: v.etcdserver ?? '?', problem: null };
  } catch (e) {
    return { version: null, problem: `etcd does not answer at ${ETCD_ENDPOINT} (or etcdctl is missing): ${(e as Error).message}` };
  }
}

function etcdctlEnv(endpoint = ETCD_ENDPOINT.replace(/^https?:\/\//, '')): NodeJS.ProcessEnv {
  return { ...process.env, ETCDCTL_API: '3', ETCDCTL_ENDPOINTS: endpoint };
}

/** Runs one shell line (as the trace writes it) with etcdctl pointed at `endpoint`; what it printed (stdout, then stderr's `Error:` lines). Killed after `killAfterMs` (then `killed`). */
async function shell(line: string, endpoint?: string, extraArgs = '', killAfterMs = 15_000): Promise<{ lines: string[]; killed: boolean }> {
  const withArgs = extraArgs === '' ? line : line.replace(/^etcdctl /, `etcdctl ${extraArgs} `);
  return new Promise((resolve, reject) => {
    // Its own process group, so that a kill ends etcdctl too (bash's child holds the output pipes).
    const p = spawn('bash', ['-c', withArgs], { env: etcdctlEnv(endpoint), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      if (p.pid !== undefined) process.kill(-p.pid, 'SIGKILL');
    }, killAfterMs);
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('error', reject);
    p.on('close', () => {
      clearTimeout(timer);
      const lines = out.replace(/\n$/, '').split('\n');
      const errors = err.split('\n').filter((l) => l.startsWith('Error:'));
      resolve({ lines: [...(out === '' ? [] : lines), ...errors], killed });
    });
  });
}

/** A gateway kv as the model's `EtcdKv` (ids in hex). */
function kvOf(raw: Record<string, unknown> | undefined): EtcdKv | null {
  if (!raw) return null;
  return {
    key: unb64(String(raw.key)), value: unb64(String(raw.value ?? '')), createRevision: Number(raw.create_revision), modRevision: Number(raw.mod_revision),
    version: Number(raw.version), lease: raw.lease === undefined || raw.lease === '0' ? null : hexId(String(raw.lease)),
  };
}

const headerRev = (r: Record<string, unknown>): number => Number((r.header as { revision?: string } | undefined)?.revision ?? NaN);

/** Sends `cmd` (ids and keys already the server's) through the gateway; the answer as an `EtcdReply`. */
async function viaGateway(cmd: EtcdCmd): Promise<EtcdReply> {
  const err = (r: Record<string, unknown>): EtcdReply | null => (typeof r.error === 'string' ? etcdError(cmd.op, r.error) : null);
  switch (cmd.op) {
    case 'leaseGrant': {
      const r = await gateway('/v3/lease/grant', { TTL: String(cmd.ttlS) });
      return err(r) ?? { op: 'leaseGrant', revision: headerRev(r), id: hexId(String(r.ID)), ttlS: Number(r.TTL) };
    }
    case 'leaseKeepAlive': {
      const r = await gateway('/v3/lease/keepalive', { ID: decId(cmd.id) });
      const e = err(r);
      if (e) return e;
      const res = (r.result ?? {}) as Record<string, unknown>;
      // clientv3 (and etcdctl) read a keep-alive answered with TTL <= 0 as "lease not found".
      const ttl = Number(res.TTL ?? 0);
      return ttl <= 0 ? etcdError(cmd.op, ETCD_LEASE_NOT_FOUND) : { op: 'leaseKeepAlive', revision: headerRev(res), id: hexId(String(res.ID)), ttlS: ttl };
    }
    case 'leaseRevoke': {
      const r = await gateway('/v3/lease/revoke', { ID: decId(cmd.id) });
      return err(r) ?? { op: 'leaseRevoke', revision: headerRev(r), id: cmd.id, deleted: [] };
    }
    case 'txnAcquire': {
      const r = await gateway('/v3/kv/txn', {
        compare: [{ key: b64(cmd.key), target: 'CREATE', result: 'EQUAL', create_revision: '0' }],
        success: [{ request_put: { key: b64(cmd.key), value: b64(cmd.value), lease: decId(cmd.lease) } }],
        failure: [{ request_range: { key: b64(cmd.key) } }],
      });
      const e = err(r);
      if (e) return e;
      const succeeded = r.succeeded === true;
      const range = ((r.responses as { response_range?: { kvs?: Record<string, unknown>[] } }[] | undefined)?.[0]?.response_range?.kvs ?? [])[0];
      return { op: 'txnAcquire', revision: headerRev(r), succeeded, kv: succeeded ? null : kvOf(range) };
    }
    case 'del': {
      const r = await gateway('/v3/kv/deleterange', { key: b64(cmd.key) });
      return err(r) ?? { op: 'del', revision: headerRev(r), deleted: Number(r.deleted ?? 0) };
    }
    case 'get': {
      const r = await gateway('/v3/kv/range', { key: b64(cmd.key) });
      return err(r) ?? { op: 'get', revision: headerRev(r), kv: kvOf((r.kvs as Record<string, unknown>[] | undefined)?.[0]) };
    }
  }
}

/** The server's revision now. */
async function serverRevision(): Promise<number> {
  return headerRev(await gateway('/v3/kv/range', { key: b64('lockscope/fidelity/revision') }));
}

/** Leases of one run of a case: the model's and the server's id of each `LeaseRef`. */
class Leases {
  readonly model = new Map<string, string>([['L0', NEVER_GRANTED]]);
  readonly real = new Map<string, string>([['L0', NEVER_GRANTED]]);
  private grants = 0;
  /** Ref of the next grant. */
  nextRef(): string {
    return `L${this.grants + 1}`;
  }
  granted(modelId: string, realId: string): void {
    this.grants += 1;
    this.model.set(`L${this.grants}`, modelId);
    this.real.set(`L${this.grants}`, realId);
  }
  /** A ref not yet granted reads as a lease never granted. */
  modelId(ref: string): string {
    return this.model.get(ref) ?? NEVER_GRANTED;
  }
  realId(ref: string): string {
    return this.real.get(ref) ?? NEVER_GRANTED;
  }
  /** The server's id for a model id (a model id of no grant stays as it is). */
  toReal(modelId: string | null): string | null {
    if (modelId === null) return null;
    for (const [ref, id] of this.model) if (id === modelId) return this.real.get(ref) ?? modelId;
    return modelId;
  }
  /** A rendered model reply with each model id replaced by the server's. */
  mapText(text: string): string {
    let out = text;
    for (const [ref, id] of this.model) if (ref !== 'L0') out = out.split(id).join(this.real.get(ref) ?? id);
    return out;
  }
}

/** The command with its keys prefixed and its lease ref resolved by `id`. */
function resolve(cmd: EtcdCmd, prefix: string, id: (ref: string) => string): EtcdCmd {
  switch (cmd.op) {
    case 'leaseGrant':
      return cmd;
    case 'leaseKeepAlive':
    case 'leaseRevoke':
      return { ...cmd, id: id(cmd.id) };
    case 'txnAcquire':
      return { ...cmd, key: prefix + cmd.key, lease: id(cmd.lease) };
    case 'del':
    case 'get':
      return { ...cmd, key: prefix + cmd.key };
  }
}

/** Keys a case touches (unprefixed). */
function keysOf(ops: readonly EtcdOp[]): string[] {
  return [...new Set(ops.flatMap((o) => (o.cmd.op === 'txnAcquire' || o.cmd.op === 'del' || o.cmd.op === 'get' ? [o.cmd.key] : [])))].sort();
}

/**
 * The ops of `ops` that keep away from every lease's expiry instant as the model sees it (see the
 * module comment): an op inside a window is dropped, and the model replayed without it.
 */
export function safeOps(ops: readonly EtcdOp[], marginMs: number): EtcdOp[] {
  const model = new EtcdLockService();
  const leases = new Leases();
  const expiry = new Map<string, number>();
  const kept: EtcdOp[] = [];
  for (const op of ops) {
    const risky = [...expiry.values()].some((e) => op.atMs > e - marginMs && op.atMs < e + ETCD_REVOKE_SLACK_MS + marginMs);
    if (risky) continue;
    const cmd = resolve(op.cmd, '', (ref) => leases.modelId(ref));
    const r = model.execute(op.atMs, 'fid', cmd).reply;
    if (r.op === 'leaseGrant') {
      leases.granted(r.id, r.id);
      expiry.set(r.id, op.atMs + r.ttlS * 1000);
    }
    if (r.op === 'leaseKeepAlive') expiry.set(r.id, op.atMs + r.ttlS * 1000);
    if (r.op === 'leaseRevoke') expiry.delete(r.id);
    kept.push(op);
  }
  return kept;
}

/** How revisions are compared: `exact` (the case runs alone), or `writes` (concurrent cases: the revisions of its own writes map one to one, in order). */
type RevisionMode = 'exact' | 'writes';

/** The revisions a reply names, paired model → server: its header's (a write's own, or any in `exact` mode) and its key's create and mod revisions. */
function revisionPairs(model: EtcdReply, real: EtcdReply, wrote: boolean, mode: RevisionMode): [number, number][] {
  const pairs: [number, number][] = [];
  if (model.op !== 'error' && real.op !== 'error' && (mode === 'exact' || wrote)) pairs.push([model.revision, real.revision]);
  const kvs = (r: EtcdReply): EtcdKv | null => (r.op === 'txnAcquire' || r.op === 'get' ? r.kv : null);
  const m = kvs(model);
  const s = kvs(real);
  if (m && s) pairs.push([m.createRevision, s.createRevision], [m.modRevision, s.modRevision]);
  return pairs;
}

/** Model and server replies agree, lease ids mapped (revisions are compared apart). */
function sameReply(model: EtcdReply, real: EtcdReply, leases: Leases): string | null {
  if (model.op !== real.op) return `model ${model.op} ≠ server ${real.op}`;
  if (model.op === 'error' && real.op === 'error') return model.message === real.message ? null : `model error "${model.message}" ≠ server error "${real.message}"`;
  const kvSame = (m: EtcdKv | null, s: EtcdKv | null): string | null => {
    if (m === null || s === null) return m === s ? null : `model ${m === null ? 'no key' : `key ${m.key}`} ≠ server ${s === null ? 'no key' : `key ${s.key}`}`;
    const ml = leases.toReal(m.lease);
    return m.key === s.key && m.value === s.value && m.version === s.version && ml === s.lease ? null : `model ${m.key}=${m.value} v${m.version} lease ${ml} ≠ server ${s.key}=${s.value} v${s.version} lease ${s.lease}`;
  };
  switch (model.op) {
    case 'leaseGrant':
    case 'leaseKeepAlive':
      return model.ttlS === (real as typeof model).ttlS ? null : `model TTL ${model.ttlS} ≠ server TTL ${(real as typeof model).ttlS}`;
    case 'leaseRevoke':
      return null;
    case 'txnAcquire': {
      const r = real as typeof model;
      return model.succeeded !== r.succeeded ? `model ${model.succeeded ? 'SUCCESS' : 'FAILURE'} ≠ server ${r.succeeded ? 'SUCCESS' : 'FAILURE'}` : kvSame(model.kv, r.kv);
    }
    case 'del':
      return model.deleted === (real as typeof model).deleted ? null : `model deleted ${model.deleted} ≠ server deleted ${(real as typeof model).deleted}`;
    case 'get':
      return kvSame(model.kv, (real as typeof model).kv);
    case 'error':
      return 'unreachable';
  }
}

let prefixCounter = 0;

/**
 * Runs one case once against the model and the server: through `etcdctl` (the trace's lines, its
 * printed output compared, then revision and keys over the gateway) or through the gateway alone.
 */
async function runOnce(c: EtcdCase, via: 'etcdctl' | 'gateway', mode: RevisionMode): Promise<CaseResult & { late: boolean }> {
  const prefix = `lockscope/fid/${process.pid}/${++prefixCounter}/`;
  const margin = c.marginMs ?? 150;
  const leases = new Leases();
  const transcript: string[] = [];
  const problems: string[] = [];
  const keys = keysOf(c.ops);
  const startRevision = await serverRevision();
  const model = new EtcdLockService(startRevision);
  const revMap = new Map<number, number>();
  let late = false;
  let minLo = Infinity;
  let maxHi = -Infinity;
  const start = performance.now();
  const granted: string[] = [];
  const replies: string[] = [];
  let expiryDeletes = 0;
  try {
    for (const op of c.ops) {
      const wait = start + op.atMs - performance.now();
      if (wait > 0) await sleep(wait);
      const modelCmd = resolve(op.cmd, prefix, (ref) => leases.modelId(ref));
      const realCmd = resolve(op.cmd, prefix, (ref) => leases.realId(ref));
      // Leases that ran out since the last request: a key deleted with one moved the revision.
      const lastRevision = model.revision;
      model.wake(op.atMs);
      expiryDeletes += model.revision - lastRevision;
      const before = model.revision;
      const m = model.execute(op.atMs, 'fid', modelCmd).reply;
      replies.push(replyKind(m));
      const wrote = model.revision > before;
      const lo = performance.now() - start - op.atMs;
      let real: EtcdReply | null = null;
      let printed: string | null = null;
      if (via === 'gateway') real = await viaGateway(realCmd);
      else {
        const out = await shell(renderEtcd(realCmd));
        printed = oneLine(out.lines);
      }
      const hi = performance.now() - start - op.atMs;
      minLo = Math.min(minLo, lo);
      maxHi = Math.max(maxHi, hi);
      ETCD_TIMING.maxSpreadMs = Math.max(ETCD_TIMING.maxSpreadMs, maxHi - minLo);
      if (maxHi - minLo >= margin) late = true;
      // A grant: map the model's id to the server's (the etcdctl line prints it).
      if (m.op === 'leaseGrant') {
        const realId = real?.op === 'leaseGrant' ? real.id : /^lease ([0-9a-f]+) granted/.exec(printed ?? '')?.[1];
        if (realId === undefined) problems.push(`t=${op.atMs} ${renderEtcd(realCmd)}: the server granted no lease (${printed ?? JSON.stringify(real)})`);
        else {
          leases.granted(m.id, realId);
          granted.push(realId);
        }
      }
      const modelText = leases.mapText(renderEtcdReply(m));
      const line = `t=${op.atMs} ${renderEtcd(realCmd)}`;
      if (via === 'etcdctl') {
        transcript.push(`${line}\n      model:  ${modelText}\n      server: ${printed}`);
        if (printed !== modelText) problems.push(`${line}: model ${modelText} ≠ server ${printed}`);
        // The store after the step: its revision and each key of the case.
        const rev = await serverRevision();
        if (rev !== model.revision) problems.push(`${line}: after it the model's store is at revision ${model.revision}, the server's at ${rev}`);
        for (const k of keys) {
          const got = await viaGateway({ op: 'get', key: prefix + k });
          const mk = model.kv(op.atMs, prefix + k);
          const sk = got.op === 'get' ? got.kv : null;
          const diff = sameReply({ op: 'get', revision: 0, kv: mk }, { op: 'get', revision: 0, kv: sk }, leases);
          const revDiff = mk && sk && (mk.createRevision !== sk.createRevision || mk.modRevision !== sk.modRevision) ? `model ${k} created at ${mk.createRevision} (mod ${mk.modRevision}) ≠ server ${sk.createRevision} (mod ${sk.modRevision})` : null;
          if (diff ?? revDiff) problems.push(`${line}: after it, ${diff ?? revDiff}`);
        }
      } else if (real) {
        transcript.push(`${line}\n      model:  ${modelText} (revision ${m.op === 'error' ? '-' : m.revision})\n      server: ${leases.mapText(renderEtcdReply(real))} (revision ${real.op === 'error' ? '-' : real.revision})`);
        const diff = sameReply(m, real, leases);
        if (diff) problems.push(`${line}: ${diff}`);
        for (const [mr, sr] of revisionPairs(m, real, wrote, mode)) {
          if (mode === 'exact' && mr !== sr) problems.push(`${line}: model revision ${mr} ≠ server revision ${sr}`);
          if (mode === 'writes') {
            const known = revMap.get(mr);
            if (known !== undefined && known !== sr) problems.push(`${line}: model revision ${mr} was the server's ${known}, now ${sr}`);
            revMap.set(mr, sr);
            const sorted = [...revMap].sort((a, b) => a[0] - b[0]);
            if (sorted.some(([, s], i) => i > 0 && s <= sorted[i - 1]![1])) problems.push(`${line}: the server's revisions of this sequence's writes are not in the model's order (${sorted.map(([a, b]) => `${a}→${b}`).join(', ')})`);
          }
        }
      }
      if (op.expect !== undefined && !renderEtcdReply(m).startsWith(op.expect)) problems.push(`${line}: the case expects "${op.expect}…" but the model replied ${renderEtcdReply(m)}`);
      if (problems.length > 0) break;
    }
  } finally {
    for (const id of granted) await gateway('/v3/lease/revoke', { ID: decId(id) }).catch(() => undefined);
    for (const k of keys) await gateway('/v3/kv/deleterange', { key: b64(prefix + k) }).catch(() => undefined);
  }
  if (problems.length === 0 && !late) {
    ETCD_STATS.requests += replies.length;
    for (const k of replies) ETCD_STATS.byReply.set(k, (ETCD_STATS.byReply.get(k) ?? 0) + 1);
    ETCD_STATS.expiryDeletes += expiryDeletes;
  }
  return { name: c.name, primitive: 'etcd lock service', outcome: problems.length > 0 ? 'disagree' : 'agree', transcript, problems, late };
}

/** Runs a case, retrying up to twice when the measured lateness spread reached its margin. */
export async function runEtcdCase(c: EtcdCase, via: 'etcdctl' | 'gateway' = 'etcdctl', mode: RevisionMode = 'exact'): Promise<CaseResult> {
  let result = await runOnce(c, via, mode);
  for (let i = 0; i < 2 && result.late; i++) result = await runOnce(c, via, mode);
  const { late, ...rest } = result;
  if (late && rest.outcome === 'disagree') {
    return { ...rest, outcome: 'excluded', excludedBecause: `the machine ran the commands with a lateness spread of ${c.marginMs ?? 150} ms or more (the case's distance from any expiry instant) three times: timing inconclusive` };
  }
  return rest;
}

// ---- hand-written cases (each a rule of lockService.ts) ----

const grant = (atMs: number, ttlS: number, expect?: string): EtcdOp => ({ atMs, cmd: { op: 'leaseGrant', ttlS }, ...(expect ? { expect } : {}) });
const txn = (atMs: number, key: string, value: string, lease: LeaseRef, expect?: string): EtcdOp => ({ atMs, cmd: { op: 'txnAcquire', key, value, lease }, ...(expect ? { expect } : {}) });
const keepAlive = (atMs: number, id: LeaseRef, expect?: string): EtcdOp => ({ atMs, cmd: { op: 'leaseKeepAlive', id }, ...(expect ? { expect } : {}) });
const revoke = (atMs: number, id: LeaseRef, expect?: string): EtcdOp => ({ atMs, cmd: { op: 'leaseRevoke', id }, ...(expect ? { expect } : {}) });
const del = (atMs: number, key: string, expect?: string): EtcdOp => ({ atMs, cmd: { op: 'del', key }, ...(expect ? { expect } : {}) });
const get = (atMs: number, key: string, expect?: string): EtcdOp => ({ atMs, cmd: { op: 'get', key }, ...(expect ? { expect } : {}) });

/** Untimed cases: every request at t = 0 with minute-long leases, so a margin of 30 s. */
const UNTIMED = 30_000;

/**
 * The hand-written cases, run through etcdctl one at a time. The timed ones space their requests
 * (each also reads the store back) and keep 400 ms from an expiry instant, 1.4 s after it.
 */
export const ETCD_CASES: readonly EtcdCase[] = [
  {
    name: 'acquire: the second client\'s compare fails and reads the holder; a revoke frees the lock; the next grant of it has a higher revision',
    ops: [grant(0, 60, 'lease'), grant(0, 60), txn(0, 'lock', 'a1', 'L1', 'SUCCESS | OK'), txn(0, 'lock', 'b1', 'L2', 'FAILURE | '), keepAlive(0, 'L1', 'lease'), revoke(0, 'L1', 'lease'), get(0, 'lock', '(no output)'), txn(0, 'lock', 'b1', 'L2', 'SUCCESS'), get(0, 'lock'), revoke(0, 'L2')],
    marginMs: UNTIMED,
  },
  {
    name: 'a TTL below etcd\'s minimum is granted as 2 s',
    ops: [grant(0, 1, 'lease'), keepAlive(0, 'L1'), revoke(0, 'L1')],
    marginMs: 400,
  },
  {
    name: 'a plain del deletes whoever\'s key and detaches it: its lease\'s revoke then deletes nothing, the successor\'s key stays',
    ops: [grant(0, 60), grant(0, 60), txn(0, 'lock', 'a1', 'L1'), del(0, 'lock', '1'), del(0, 'lock', '0'), txn(0, 'lock', 'b1', 'L2', 'SUCCESS'), keepAlive(0, 'L1'), revoke(0, 'L1'), get(0, 'lock'), revoke(0, 'L2')],
    marginMs: UNTIMED,
  },
  {
    name: 'a lease that is gone: keep-alive and revoke answer "lease not found"; a put with it is refused only when the compare lets it run',
    ops: [grant(0, 60), grant(0, 60), revoke(0, 'L2'), keepAlive(0, 'L2', 'Error: etcdserver: requested lease not found'), revoke(0, 'L2', 'Error: failed to revoke lease'), txn(0, 'lock', 'a1', 'L1'), txn(0, 'lock', 'b1', 'L2', 'FAILURE'), revoke(0, 'L1'), txn(0, 'lock', 'b1', 'L2', 'Error: etcdserver: requested lease not found'), txn(0, 'lock', 'c1', 'L0', 'Error: etcdserver: requested lease not found')],
    marginMs: UNTIMED,
  },
  {
    name: 'expiry (timed): a lease nobody keeps alive runs out, etcd deletes its key in one revision; a keep-alive then finds no lease; the next acquire is two revisions on',
    ops: [grant(0, 2), txn(250, 'lock', 'a1', 'L1'), get(1000, 'lock', 'lock'), get(3500, 'lock', '(no output)'), keepAlive(3750, 'L1', 'Error'), revoke(4000, 'L1', 'Error'), grant(4250, 60), txn(4500, 'lock', 'b1', 'L2', 'SUCCESS'), get(4750, 'lock'), revoke(5000, 'L2')],
    marginMs: 400,
  },
  {
    name: 'keep-alive (timed): it restarts the full TTL from its own time; a waiter\'s compare fails until the holder\'s lease runs out',
    ops: [grant(0, 3), grant(250, 60), txn(500, 'lock', 'a1', 'L1'), keepAlive(2000, 'L1', 'lease'), get(4500, 'lock', 'lock'), txn(4500, 'lock', 'b1', 'L2', 'FAILURE'), txn(6500, 'lock', 'b1', 'L2', 'SUCCESS'), revoke(6750, 'L2')],
    marginMs: 400,
  },
];

/**
 * A client cut off from etcd: etcdctl pointed at a port nobody listens on (short dial and command
 * timeouts), against the model's replies to a worker cut off by a partition. The requests with a
 * command timeout print their `Error: … (context deadline exceeded)`; `txn` and `keep-alive --once`
 * have none and print nothing before they are killed (the trace shows a client's own timeout).
 */
export async function runCutOffCase(): Promise<CaseResult> {
  const cmds: EtcdCmd[] = [
    { op: 'leaseGrant', ttlS: 10 },
    { op: 'leaseKeepAlive', id: '694d71ddacfda227' },
    { op: 'leaseRevoke', id: '694d71ddacfda227' },
    { op: 'txnAcquire', key: 'lockscope/fid/cutoff', value: 'a1', lease: '694d71ddacfda227' },
    { op: 'del', key: 'lockscope/fid/cutoff' },
  ];
  const transcript: string[] = [];
  const problems: string[] = [];
  // All at once: each waits out its timeout (or is killed).
  const outs = await Promise.all(cmds.map((cmd) => shell(renderEtcd(cmd), '127.0.0.1:1', '--dial-timeout=300ms --command-timeout=1s', 2500)));
  for (const [i, cmd] of cmds.entries()) {
    const model = etcdError(cmd.op, ETCD_TIMEOUT_MESSAGE);
    const out = outs[i]!;
    const printed = out.killed && out.lines.length === 0 ? '(no reply: connection timed out)' : oneLine(out.lines);
    transcript.push(`${renderEtcd(cmd)} (no server)\n      model:  ${renderEtcdReply(model)}\n      server: ${printed}${out.killed ? ' (killed after 2.5 s)' : ''}`);
    if (printed !== renderEtcdReply(model)) problems.push(`${renderEtcd(cmd)}: model ${renderEtcdReply(model)} ≠ etcdctl ${printed}`);
  }
  return { name: 'a client cut off from etcd: what each request prints', primitive: 'etcd lock service', outcome: problems.length > 0 ? 'disagree' : 'agree', transcript, problems };
}

// ---- generated sequences ----

const gKey = fc.constantFrom('k1', 'k2');
const gLease = fc.constantFrom<LeaseRef>('L1', 'L1', 'L1', 'L1', 'L2', 'L2', 'L2', 'L3', 'L0');
const gValue = fc.constantFrom('a', 'b', 'c');

function etcdCmdArb(ttls: readonly number[]): fc.Arbitrary<EtcdCmd> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...ttls).map((ttlS): EtcdCmd => ({ op: 'leaseGrant', ttlS })) },
    { weight: 2, arbitrary: gLease.map((id): EtcdCmd => ({ op: 'leaseKeepAlive', id })) },
    { weight: 2, arbitrary: gLease.map((id): EtcdCmd => ({ op: 'leaseRevoke', id })) },
    { weight: 5, arbitrary: fc.record({ key: gKey, value: gValue, lease: gLease }).map(({ key, value, lease }): EtcdCmd => ({ op: 'txnAcquire', key, value, lease })) },
    { weight: 2, arbitrary: gKey.map((key): EtcdCmd => ({ op: 'del', key })) },
    { weight: 2, arbitrary: gKey.map((key): EtcdCmd => ({ op: 'get', key })) },
  );
}

/** One or two grants first (most requests then name a lease that exists), then the rest. */
function withGrants<T>(ttls: readonly number[], rest: fc.Arbitrary<T[]>, first: (ttlS: number) => T): fc.Arbitrary<T[]> {
  return fc.tuple(fc.array(fc.constantFrom(...ttls), { minLength: 1, maxLength: 2 }), rest).map(([g, xs]) => [...g.map(first), ...xs]);
}

/** Untimed: every request at t = 0, leases of a minute (time plays no part). */
export const etcdUntimedArb = withGrants([60, 90], fc.array(etcdCmdArb([60, 90]), { minLength: 2, maxLength: 20 }), (ttlS): EtcdCmd => ({ op: 'leaseGrant', ttlS }));

/** Timed: requests on a 250 ms grid over 0–7 s, TTLs of 1 (granted as 2), 2 and 3 s; those near an expiry are dropped (`safeOps`). */
export const etcdTimedArb = withGrants([1, 2, 3], fc.array(fc.record({ slot: fc.integer({ min: 0, max: 28 }), cmd: etcdCmdArb([1, 2, 3]) }), { minLength: 3, maxLength: 18 }), (ttlS) => ({ slot: 0, cmd: { op: 'leaseGrant', ttlS } as EtcdCmd }))
  .map((xs) => [...xs].sort((a, b) => a.slot - b.slot));

/** One generated etcd run: `untimed` sequences from seed `seed`, `timed` sampled with `seed + 202`. */
export interface EtcdSeedRun {
  readonly seed: number;
  readonly untimed: number;
  readonly timed: number;
}

/** Untimed sequences: every request at t = 0 with minute-long leases, so a margin of 30 s. */
const UNTIMED_MARGIN_MS = 30_000;
/** Timed sequences keep this far from an expiry instant (and `ETCD_REVOKE_SLACK_MS` more after it). */
const TIMED_MARGIN_MS = 300;
/** Timed sequences run this many at a time (more only adds lateness on a busy machine). */
const TIMED_AT_ONCE = 15;

/** Runs generated etcd sequences: untimed ones one at a time, timed ones all at once (their revisions interleave on the server). */
export async function runGeneratedEtcd(entry: EtcdSeedRun): Promise<GeneratedReport> {
  const report: GeneratedReport = { results: [], failures: [], flakes: [], failing: [] };
  let n = 0;
  let found: CaseResult | null = null;
  let lastFailing: CaseResult | null = null;
  const label = `generated etcd (untimed) seed ${entry.seed}`;
  const d1 = await fc.check(fc.asyncProperty(etcdUntimedArb, async (cmds) => {
    const shrinking = found !== null;
    const k = ++n;
    const c: EtcdCase = { name: `generated etcd #${k}`, marginMs: UNTIMED_MARGIN_MS, ops: cmds.map((cmd) => ({ atMs: 0, cmd })) };
    const { result, flake } = await runConfirmed(() => runEtcdCase(c, 'gateway', 'exact'));
    if (!shrinking) {
      report.results.push(result);
      if (flake) report.flakes.push(formatFlake(`${label} #${k}`, flake));
    }
    if (result.outcome === 'disagree') {
      found ??= result;
      lastFailing = result;
      return false;
    }
    return true;
  }), { seed: entry.seed, numRuns: entry.untimed });
  if (d1.failed && lastFailing) {
    report.failures.push(formatDisagreement(`${label}, shrunk (path ${d1.counterexamplePath ?? '?'}; repeat with FIDELITY_SEED=${entry.seed})`, lastFailing));
    report.failing.push({ kind: 'etcd', label, seed: entry.seed, problem: (lastFailing as CaseResult).problems[0] ?? '' });
  }
  const samples = fc.sample(etcdTimedArb, { seed: entry.seed + 202, numRuns: entry.timed });
  const timed: Awaited<ReturnType<typeof runConfirmed>>[] = [];
  for (let from = 0; from < samples.length; from += TIMED_AT_ONCE) {
    timed.push(...await Promise.all(samples.slice(from, from + TIMED_AT_ONCE).map((xs, j) => runConfirmed(() => runEtcdCase({
      name: `generated timed etcd #${from + j + 1}`, marginMs: TIMED_MARGIN_MS, ops: safeOps(xs.map((x) => ({ atMs: x.slot * 250, cmd: x.cmd })), TIMED_MARGIN_MS),
    }, 'gateway', 'writes')))));
  }
  for (const { result, flake } of timed) {
    report.results.push(result);
    if (flake) report.flakes.push(formatFlake(`generated timed etcd seed ${entry.seed}: ${result.name}`, flake));
    if (result.outcome === 'disagree') {
      report.failures.push(formatDisagreement(`generated timed etcd seed ${entry.seed}: ${result.name} (sampled with seed ${entry.seed + 202})`, result));
      report.failing.push({ kind: 'etcd', label: `generated timed etcd seed ${entry.seed}`, seed: entry.seed, problem: result.problems[0] ?? '' });
    }
  }
  return report;
}
