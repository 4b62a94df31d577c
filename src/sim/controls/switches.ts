/**
 * The mechanism switches a scenario offers, as data: which are shown for a scenario (`relevant`),
 * whether one can change this scenario's run at all (`appliesTo`, with the reason when it cannot,
 * like a fault kind's `appliesTo` in faults/registry.ts), their current value, and the new
 * Scenario object a change produces (e.g. fencing sets mechanism.fencing and
 * destination.checksFencing together). The mechanism panel, the compare view, the editor and the
 * property tests read this one list; `switchStatus` (status.ts) says whether a shown switch can
 * change the run it is shown for.
 */
import type { Scenario } from '../scenario/schema';

/** One switch. Boolean switches have no options. */
export interface SwitchDef {
  readonly id: string;
  /**
   * What the switch does, in neutral words: never whether a value is safe or a bug (the
   * candidate of an interview reads the labels; a judgement belongs in `hints`, which a view
   * shows only with its hints).
   */
  readonly label: string;
  /** The label in the (narrow) mechanism panel. */
  readonly short?: string;
  readonly help: string;
  /** What the current value does, per value ('true'/'false' for booleans): shown under the control. */
  readonly hints?: Readonly<Record<string, string>>;
  readonly options?: readonly SwitchOption[];
  /**
   * The options this scenario offers, when they depend on it (optional; absent = `options`): a
   * lease in etcd (`lockService`) is offered etcd's words and values — keep-alive, revoke, the
   * grant's revision as the token — and not Redis's. Read them through `switchOptions`.
   */
  optionsFor?(s: Scenario): readonly SwitchOption[];
  relevant(s: Scenario): boolean;
  /**
   * Structural applicability: null when the switch may change this scenario's run, else the reason
   * it cannot ("no step reads a job record: the job has no check step"). Optional: absent = may apply.
   */
  appliesTo?(s: Scenario): string | null;
  /**
   * Why the switch changes nothing in a run where it structurally applies but no value changes the
   * trace (e.g. "no renewal fails in this run"). Words for the panel; the run decides (status.ts).
   */
  idleReason: string;
  get(s: Scenario): string | boolean;
  set(s: Scenario, v: string | boolean): Scenario;
  /**
   * For a switch that stands for several fields (fencing: the workers take a token *and* the
   * destination checks it; `get` is on only when both are), what the fields its value does not
   * show hold, as neutral facts — states, never consequences ("Workers take a token: yes (Redis
   * INCR)") — so that the control never contradicts the trace (a log of INCRs under an unticked
   * switch). `agrees` is false when the fields differ from what `set(s, get(s))` would make them
   * (the value alone misstates the scenario). Optional: absent = the value says it all.
   */
  facts?(s: Scenario): SwitchFacts;
}

/** Neutral facts of the fields a switch's value does not show (`SwitchDef.facts`). */
export interface SwitchFacts {
  readonly text: string;
  /** The fields agree with the value shown (setting that value would change nothing). */
  readonly agrees: boolean;
}

/** One value of a select switch; `hint` (optional) replaces the switch's `hints` entry for it. */
export interface SwitchOption {
  readonly value: string;
  /** What the value does, neutral like `SwitchDef.label` ("plain SET", not "plain SET (unsafe)"). */
  readonly label: string;
  readonly hint?: string;
}

/** The lease lives in etcd (`lockService`). */
const inEtcd = (s: Scenario): boolean => s.lockService !== undefined;

const hasStep = (s: Scenario, step: string) => s.workers.some((w) => w.steps.some((x) => x.do === step));
const hasFault = (s: Scenario, kind: string) => s.faults.some((f) => f.kind === kind);
const m = (s: Scenario, patch: Partial<Scenario['mechanism']>): Scenario => ({ ...s, mechanism: { ...s.mechanism, ...patch } });

/** Where the workers' fencing token comes from, as the trace's commands name it. */
function tokenSource(s: Scenario): string {
  const src = s.mechanism.fenceSource ?? (inEtcd(s) ? 'lock-service-revision' : 'redis-incr');
  return src === 'db-sequence' ? "nextval('fence_seq')" : src === 'lock-service-revision' ? 'the etcd revision of the lock' : 'Redis INCR';
}

/**
 * The facts of a two-sided switch: what the workers do (`sends`, worded by `workerPart`) and, when
 * the destination's side is on without the workers', that too (the value shown is then off).
 */
function twoSided(sends: boolean, checks: boolean, workerPart: string, destinationPart: string): SwitchFacts {
  return { text: `${workerPart}${checks && !sends ? ` · ${destinationPart}` : ''}`, agrees: sends === checks };
}

/** Every switch, in panel order. */
export const SWITCHES: readonly SwitchDef[] = [
  {
    id: 'lock', label: 'Lock', help: 'what the acquire step takes',
    hints: { none: 'nothing stops two workers', 'advisory-xact': 'held until the transaction ends', 'advisory-session': 'held until unlock or session end', lease: 'a key that expires after its TTL' },
    options: [
      { value: 'none', label: 'none' },
      { value: 'advisory-xact', label: 'pg_advisory_xact_lock' },
      { value: 'advisory-session', label: 'pg_advisory_lock' },
      { value: 'lease', label: 'Redis lease (SET NX PX)' },
    ],
    optionsFor: (s) => (inEtcd(s) ? [
      { value: 'none', label: 'none' },
      { value: 'advisory-xact', label: 'pg_advisory_xact_lock' },
      { value: 'advisory-session', label: 'pg_advisory_lock' },
      { value: 'lease', label: 'etcd lease (grant + txn)', hint: 'a key etcd deletes when its lease is not kept alive' },
    ] : SWITCHES[0]!.options!),
    relevant: (s) => hasStep(s, 'acquire'),
    idleReason: 'no worker reaches its acquire step in this run',
    get: (s) => s.mechanism.lock,
    set: (s, v) => m(s, { lock: v as Scenario['mechanism']['lock'] }),
  },
  {
    id: 'release', label: 'Lease release', short: 'Release', help: 'how the holder gives the lease back',
    hints: { del: 'DEL removes the key, whoever holds it', 'compare-and-delete': 'deletes only if the key is still ours' },
    options: [{ value: 'del', label: 'plain DEL' }, { value: 'compare-and-delete', label: 'compare-and-delete' }],
    optionsFor: (s) => (inEtcd(s)
      ? [{ value: 'del', label: 'plain etcdctl del', hint: 'deletes the key, whoever holds it' }, { value: 'compare-and-delete', label: 'revoke its lease', hint: 'only its own lease\'s key goes' }]
      : [{ value: 'del', label: 'plain DEL' }, { value: 'compare-and-delete', label: 'compare-and-delete' }]),
    relevant: (s) => s.mechanism.lock === 'lease',
    idleReason: 'no worker releases the lease in this run',
    appliesTo: (s) => (hasStep(s, 'release') || s.mechanism.releaseInFinally === true || hasFault(s, 'jobError') ? null : 'no step releases the lease (the job has no release step)'),
    get: (s) => s.mechanism.release,
    set: (s, v) => m(s, { release: v as Scenario['mechanism']['release'] }),
  },
  {
    id: 'renewal', label: 'Lease renewal', short: 'Renewal', help: 'extend the lease while working',
    hints: { none: 'no renewal: expires after the TTL', 'compare-and-extend': 'extends only while the key is ours', set: 'unsafe: SET overwrites whoever holds it', 'set-px': 'SET … PX re-acquires after a gap', pexpire: 'PEXPIRE extends whoever holds it' },
    options: [{ value: 'none', label: 'none' }, { value: 'compare-and-extend', label: 'compare-and-extend' }, { value: 'set', label: 'plain SET' }, { value: 'set-px', label: 'SET PX again' }, { value: 'pexpire', label: 'plain PEXPIRE' }],
    // An etcd lease is renewed by keep-alive only (its lease id names it: it extends its own lease, not the key).
    optionsFor: (s) => (inEtcd(s)
      ? [{ value: 'none', label: 'none', hint: 'no keep-alive: the lease runs out after its TTL' }, { value: 'compare-and-extend', label: 'keep-alive', hint: 'keeps its own lease alive (not the key)' }]
      : SWITCHES.find((d) => d.id === 'renewal')!.options!),
    relevant: (s) => s.mechanism.lock === 'lease',
    idleReason: 'every job ends before its first renewal is due',
    get: (s) => s.mechanism.renewal,
    set: (s, v) => m(s, { renewal: v as Scenario['mechanism']['renewal'] }),
  },
  {
    id: 'stopOnRenewFailure', label: 'Stop when a renewal fails', short: 'Stop on renewal failure', help: 'stop before the effect once a renewal failed',
    hints: { true: 'a failed renewal stops the job', false: 'a failed renewal is ignored' },
    relevant: (s) => s.mechanism.lock === 'lease',
    idleReason: 'no renewal fails in this run (cut a worker off from the lease store to see one fail)',
    appliesTo: (s) => (s.mechanism.renewal === 'none' ? 'the lease is never renewed, so no renewal can fail (turn renewal on first)' : !hasStep(s, 'effect') && !hasStep(s, 'record') ? 'the job has no effect or record step to stop before' : null),
    get: (s) => s.mechanism.stopOnRenewFailure,
    set: (s, v) => m(s, { stopOnRenewFailure: Boolean(v) }),
  },
  {
    id: 'fencing', label: 'Fencing token (checked by the destination)', short: 'Fencing token', help: 'a token with the lease; the destination (or the row\'s UPDATE … AND fence < $token) rejects lower tokens',
    hints: { true: 'destination rejects older tokens', false: 'destination accepts any write' },
    relevant: (s) => s.mechanism.lock === 'lease' || s.mechanism.fencing,
    idleReason: 'no write reaches the destination in this run',
    get: (s) => s.mechanism.fencing && s.destination.checksFencing,
    set: (s, v) => ({ ...m(s, { fencing: Boolean(v) }), destination: { ...s.destination, checksFencing: Boolean(v) } }),
    facts: (s) => twoSided(s.mechanism.fencing, s.destination.checksFencing,
      `Workers take a token: ${s.mechanism.fencing ? `yes (${tokenSource(s)})` : 'no'}`,
      s.job.kind === 'fencedRow' ? 'the UPDATE compares tokens' : 'the destination checks tokens'),
  },
  {
    id: 'fenceSource', label: 'Fencing token from', short: 'Token from', help: 'where the fencing token comes from',
    hints: { 'redis-incr': 'INCR in the lock\'s Redis: a failover can lose it', 'db-sequence': 'nextval: durable, never handed out twice', 'lock-service-revision': 'the revision of the put that took the lock: only grows' },
    options: [{ value: 'redis-incr', label: 'Redis INCR' }, { value: 'db-sequence', label: 'database sequence' }],
    // A lease in etcd has no Redis next to it: its token is the grant's revision (or a sequence).
    optionsFor: (s) => (inEtcd(s)
      ? [{ value: 'lock-service-revision', label: 'etcd revision' }, { value: 'db-sequence', label: 'database sequence' }]
      : SWITCHES.find((d) => d.id === 'fenceSource')!.options!),
    relevant: (s) => s.mechanism.lock === 'lease' && s.mechanism.fencing,
    idleReason: 'no worker takes a fencing token in this run',
    get: (s) => s.mechanism.fenceSource ?? 'redis-incr',
    // Redis INCR is the default: leave the field out, so the scenario reads as before it existed.
    set: (s, v) => {
      const { fenceSource: _, ...rest } = s.mechanism;
      return v === 'db-sequence' || v === 'lock-service-revision' ? m(s, { fenceSource: v }) : { ...s, mechanism: rest };
    },
  },
  {
    id: 'idempotencyKey', label: 'Idempotency key (honoured by the destination)', short: 'Idempotency key', help: 'a repeated key replays the first result',
    hints: { true: 'a repeated key replays the result', false: 'each request repeats the effect' },
    relevant: (s) => s.job.kind === 'external',
    idleReason: 'no request reaches the destination in this run',
    appliesTo: (s) => (hasStep(s, 'effect') ? null : 'the job sends no request (it has no effect step)'),
    get: (s) => s.mechanism.idempotencyKey && s.destination.honoursIdempotencyKeys,
    set: (s, v) => ({ ...m(s, { idempotencyKey: Boolean(v) }), destination: { ...s.destination, honoursIdempotencyKeys: Boolean(v) } }),
    facts: (s) => twoSided(s.mechanism.idempotencyKey, s.destination.honoursIdempotencyKeys,
      `Workers send a key: ${s.mechanism.idempotencyKey ? 'yes (the job key)' : 'no'}`, 'the destination honours keys'),
  },
  {
    id: 'jobRecord', label: 'Check the durable job record first', short: 'Check job record first', help: 'a check step reads the jobs table; a job marked done is skipped',
    hints: { true: 'skip jobs the table marks done', false: 'no record: a retry redoes the job' },
    relevant: (s) => s.job.kind === 'external' || hasStep(s, 'record') || hasStep(s, 'enqueue'),
    idleReason: 'no worker reads the job record in this run',
    appliesTo: (s) => (s.job.kind === 'insertOnce' ? 'the check step reads the business row itself, not a job record' : hasStep(s, 'check') ? null : hasStep(s, 'record') || hasStep(s, 'enqueue') ? 'the job already writes its record in its steps (enqueue, record); this switch makes a check step read it first, and the job has no check step' : 'no step reads a job record (the job has no check step)'),
    get: (s) => s.mechanism.jobRecord,
    set: (s, v) => m(s, { jobRecord: Boolean(v) }),
  },
  {
    id: 'uniqueKey', label: 'UNIQUE key on the business key', short: 'UNIQUE key', help: 'the second insert waits, then gets 23505',
    hints: { true: 'the 2nd insert waits, then 23505', false: 'nothing stops a second row' },
    relevant: (s) => s.job.kind === 'insertOnce',
    idleReason: 'only one worker inserts the key in this run',
    get: (s) => s.mechanism.uniqueKey,
    set: (s, v) => m(s, { uniqueKey: Boolean(v) }),
  },
  {
    id: 'onConflict', label: 'On conflict', help: 'plain INSERT or ON CONFLICT DO NOTHING',
    hints: { error: 'the loser gets 23505, then reads', doNothing: 'the loser inserts nothing, no error' },
    options: [{ value: 'error', label: 'INSERT (23505, then load)' }, { value: 'doNothing', label: 'ON CONFLICT DO NOTHING' }],
    relevant: (s) => s.job.kind === 'insertOnce',
    idleReason: 'no insert meets a conflicting row in this run',
    get: (s) => s.mechanism.onConflict,
    set: (s, v) => m(s, { onConflict: v as Scenario['mechanism']['onConflict'] }),
  },
  {
    id: 'rowLock', label: 'Row lock on read', short: 'Row lock', help: 'SELECT … FOR UPDATE',
    hints: { none: 'no lock: both read the same value', forUpdate: 'the second reader waits', forUpdateNowait: 'the second reader fails at once', forUpdateSkipLocked: 'the second reader skips the row' },
    options: [{ value: 'none', label: 'none' }, { value: 'forUpdate', label: 'FOR UPDATE' }, { value: 'forUpdateNowait', label: 'FOR UPDATE NOWAIT' }, { value: 'forUpdateSkipLocked', label: 'FOR UPDATE SKIP LOCKED' }],
    relevant: (s) => hasStep(s, 'read'),
    idleReason: 'no two readers meet on the row in this run',
    get: (s) => s.mechanism.rowLock,
    set: (s, v) => m(s, { rowLock: v as Scenario['mechanism']['rowLock'] }),
  },
  {
    id: 'checkConstraint', label: 'CHECK (stock >= 0)', help: 'the database refuses a negative stock',
    hints: { true: 'the database refuses stock < 0', false: 'stock may go below zero' },
    relevant: (s) => s.job.kind === 'reserve',
    idleReason: 'no reservation takes the stock below zero in this run',
    get: (s) => s.mechanism.checkConstraint,
    set: (s, v) => m(s, { checkConstraint: Boolean(v) }),
  },
  {
    id: 'onError', label: 'On a job error', short: 'On error', help: 'what happens to the connection and its session locks',
    hints: { return: 'returned with its session locks', unlockInFinally: 'unlocked before it is returned', discardConnection: 'session ends, its locks with it' },
    options: [{ value: 'return', label: 'return the connection as is' }, { value: 'unlockInFinally', label: 'unlock in finally' }, { value: 'discardConnection', label: 'discard the connection' }],
    relevant: (s) => hasStep(s, 'connect') || s.mechanism.lock.startsWith('advisory'),
    idleReason: 'no job fails while it holds a connection in this run',
    get: (s) => s.mechanism.onError,
    set: (s, v) => m(s, { onError: v as Scenario['mechanism']['onError'] }),
  },
  {
    id: 'acquireTimeoutMs', label: 'Give up acquiring after', short: 'Give up after', help: 'lock_timeout for an advisory lock; stop retrying SET NX for a lease',
    hints: { none: 'waits for ever', '2000': 'after 2 s the job fails', '5000': 'after 5 s the job fails', '10000': 'after 10 s the job fails' },
    options: [{ value: 'none', label: 'never' }, { value: '2000', label: '2 s' }, { value: '5000', label: '5 s' }, { value: '10000', label: '10 s' }],
    relevant: (s) => hasStep(s, 'acquire') && s.mechanism.lock !== 'none',
    idleReason: 'no worker waits that long to acquire in this run',
    get: (s) => (s.mechanism.acquireTimeoutMs == null ? 'none' : String(s.mechanism.acquireTimeoutMs)),
    set: (s, v) => m(s, { acquireTimeoutMs: v === 'none' ? null : Number(v) }),
  },
  {
    id: 'releaseInFinally', label: 'Cleanup releases even if never acquired', short: 'Release in finally', help: 'finally { release } runs after a failed acquire too',
    hints: { true: 'a bug: a worker that gave up still deletes the key', false: 'only an owner releases' },
    relevant: (s) => s.mechanism.lock === 'lease',
    idleReason: 'no worker runs its error path without the lease in this run',
    get: (s) => s.mechanism.releaseInFinally === true,
    set: (s, v) => m(s, { releaseInFinally: v === true }),
  },
];

/** The switches that apply to this scenario. */
export function relevantSwitches(s: Scenario): SwitchDef[] {
  return SWITCHES.filter((d) => d.relevant(s));
}

/** The options switch `d` offers for scenario `s` (its `optionsFor`, else its `options`; none for a boolean switch). */
export function switchOptions(d: SwitchDef, s: Scenario): readonly SwitchOption[] {
  return d.optionsFor?.(s) ?? d.options ?? [];
}

/** The scenario with one switch flipped (booleans toggle; enums take the next option). */
export function flipSwitch(s: Scenario, id: string): Scenario {
  const d = SWITCHES.find((x) => x.id === id);
  if (!d) return s;
  const v = d.get(s);
  if (typeof v === 'boolean') return d.set(s, !v);
  const opts = switchOptions(d, s);
  const i = opts.findIndex((o) => o.value === v);
  return d.set(s, opts[(i + 1) % opts.length]?.value ?? v);
}

/** A short description of a switch's value ("fencing on", "release: plain DEL"). */
export function switchValueText(s: Scenario, id: string): string {
  const d = SWITCHES.find((x) => x.id === id);
  if (!d) return id;
  const v = d.get(s);
  if (typeof v === 'boolean') return `${d.label}: ${v ? 'on' : 'off'}`;
  return `${d.label}: ${switchOptions(d, s).find((o) => o.value === v)?.label ?? v}`;
}

/** What the switch's current value does, in a few words (falls back to the general help). */
export function switchHint(s: Scenario, d: SwitchDef): string {
  const v = String(d.get(s));
  return switchOptions(d, s).find((o) => o.value === v)?.hint ?? d.hints?.[v] ?? d.help;
}
