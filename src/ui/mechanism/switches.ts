/**
 * The mechanism switches a scenario offers, as data: which apply to this scenario, their current
 * value, and the new Scenario object a change produces (e.g. fencing sets mechanism.fencing and
 * destination.checksFencing together). Used by the mechanism panel and the compare view.
 */
import type { Scenario } from '../../sim';

/** One switch. Boolean switches have no options. */
export interface SwitchDef {
  readonly id: string;
  readonly label: string;
  readonly help: string;
  readonly options?: readonly { readonly value: string; readonly label: string }[];
  relevant(s: Scenario): boolean;
  get(s: Scenario): string | boolean;
  set(s: Scenario, v: string | boolean): Scenario;
}

const hasStep = (s: Scenario, step: string) => s.workers.some((w) => w.steps.some((x) => x.do === step));
const m = (s: Scenario, patch: Partial<Scenario['mechanism']>): Scenario => ({ ...s, mechanism: { ...s.mechanism, ...patch } });

/** Every switch, in panel order. */
export const SWITCHES: readonly SwitchDef[] = [
  {
    id: 'lock', label: 'Lock', help: 'what the acquire step takes',
    options: [
      { value: 'none', label: 'none' },
      { value: 'advisory-xact', label: 'pg_advisory_xact_lock (transaction)' },
      { value: 'advisory-session', label: 'pg_advisory_lock (session)' },
      { value: 'lease', label: 'Redis lease (SET NX PX)' },
    ],
    relevant: (s) => hasStep(s, 'acquire'),
    get: (s) => s.mechanism.lock,
    set: (s, v) => m(s, { lock: v as Scenario['mechanism']['lock'] }),
  },
  {
    id: 'release', label: 'Lease release', help: 'plain DEL deletes whoever holds the key',
    options: [{ value: 'del', label: 'plain DEL' }, { value: 'compare-and-delete', label: 'compare-and-delete' }],
    relevant: (s) => s.mechanism.lock === 'lease',
    get: (s) => s.mechanism.release,
    set: (s, v) => m(s, { release: v as Scenario['mechanism']['release'] }),
  },
  {
    id: 'renewal', label: 'Lease renewal', help: 'extend the lease while working',
    options: [{ value: 'none', label: 'none' }, { value: 'compare-and-extend', label: 'compare-and-extend' }, { value: 'set', label: 'plain SET (unsafe)' }],
    relevant: (s) => s.mechanism.lock === 'lease',
    get: (s) => s.mechanism.renewal,
    set: (s, v) => m(s, { renewal: v as Scenario['mechanism']['renewal'] }),
  },
  {
    id: 'stopOnRenewFailure', label: 'Stop when a renewal fails', help: 'stop before the effect once a renewal failed',
    relevant: (s) => s.mechanism.lock === 'lease',
    get: (s) => s.mechanism.stopOnRenewFailure,
    set: (s, v) => m(s, { stopOnRenewFailure: Boolean(v) }),
  },
  {
    id: 'fencing', label: 'Fencing token (checked by the destination)', help: 'INCR a token with the lease; the destination rejects lower tokens',
    relevant: (s) => s.mechanism.lock === 'lease' || s.mechanism.fencing,
    get: (s) => s.mechanism.fencing && s.destination.checksFencing,
    set: (s, v) => ({ ...m(s, { fencing: Boolean(v) }), destination: { ...s.destination, checksFencing: Boolean(v) } }),
  },
  {
    id: 'idempotencyKey', label: 'Idempotency key (honoured by the destination)', help: 'a repeated key replays the first result',
    relevant: (s) => s.job.kind === 'external',
    get: (s) => s.mechanism.idempotencyKey && s.destination.honoursIdempotencyKeys,
    set: (s, v) => ({ ...m(s, { idempotencyKey: Boolean(v) }), destination: { ...s.destination, honoursIdempotencyKeys: Boolean(v) } }),
  },
  {
    id: 'jobRecord', label: 'Durable job record', help: 'check the jobs table first; skip when done',
    relevant: (s) => s.job.kind === 'external' || hasStep(s, 'record') || hasStep(s, 'enqueue'),
    get: (s) => s.mechanism.jobRecord,
    set: (s, v) => m(s, { jobRecord: Boolean(v) }),
  },
  {
    id: 'uniqueKey', label: 'UNIQUE key on the business key', help: 'the second insert waits, then gets 23505',
    relevant: (s) => s.job.kind === 'insertOnce',
    get: (s) => s.mechanism.uniqueKey,
    set: (s, v) => m(s, { uniqueKey: Boolean(v) }),
  },
  {
    id: 'onConflict', label: 'On conflict', help: 'plain INSERT or ON CONFLICT DO NOTHING',
    options: [{ value: 'error', label: 'INSERT (23505, then load)' }, { value: 'doNothing', label: 'ON CONFLICT DO NOTHING' }],
    relevant: (s) => s.job.kind === 'insertOnce',
    get: (s) => s.mechanism.onConflict,
    set: (s, v) => m(s, { onConflict: v as Scenario['mechanism']['onConflict'] }),
  },
  {
    id: 'rowLock', label: 'Row lock on read', help: 'SELECT … FOR UPDATE',
    options: [{ value: 'none', label: 'none' }, { value: 'forUpdate', label: 'FOR UPDATE' }, { value: 'forUpdateNowait', label: 'FOR UPDATE NOWAIT' }, { value: 'forUpdateSkipLocked', label: 'FOR UPDATE SKIP LOCKED' }],
    relevant: (s) => hasStep(s, 'read'),
    get: (s) => s.mechanism.rowLock,
    set: (s, v) => m(s, { rowLock: v as Scenario['mechanism']['rowLock'] }),
  },
  {
    id: 'checkConstraint', label: 'CHECK (stock >= 0)', help: 'the database refuses a negative stock',
    relevant: (s) => s.job.kind === 'reserve',
    get: (s) => s.mechanism.checkConstraint,
    set: (s, v) => m(s, { checkConstraint: Boolean(v) }),
  },
  {
    id: 'onError', label: 'On a job error', help: 'what happens to the connection and its session locks',
    options: [{ value: 'return', label: 'return the connection as is' }, { value: 'unlockInFinally', label: 'unlock in finally' }, { value: 'discardConnection', label: 'discard the connection' }],
    relevant: (s) => hasStep(s, 'connect') || s.mechanism.lock.startsWith('advisory'),
    get: (s) => s.mechanism.onError,
    set: (s, v) => m(s, { onError: v as Scenario['mechanism']['onError'] }),
  },
];

/** The switches that apply to this scenario. */
export function relevantSwitches(s: Scenario): SwitchDef[] {
  return SWITCHES.filter((d) => d.relevant(s));
}

/** The scenario with one switch flipped (booleans toggle; enums take the next option). */
export function flipSwitch(s: Scenario, id: string): Scenario {
  const d = SWITCHES.find((x) => x.id === id);
  if (!d) return s;
  const v = d.get(s);
  if (typeof v === 'boolean') return d.set(s, !v);
  const opts = d.options ?? [];
  const i = opts.findIndex((o) => o.value === v);
  return d.set(s, opts[(i + 1) % opts.length]?.value ?? v);
}

/** A short description of a switch's value ("fencing on", "release: plain DEL"). */
export function switchValueText(s: Scenario, id: string): string {
  const d = SWITCHES.find((x) => x.id === id);
  if (!d) return id;
  const v = d.get(s);
  if (typeof v === 'boolean') return `${d.label}: ${v ? 'on' : 'off'}`;
  return `${d.label}: ${d.options?.find((o) => o.value === v)?.label ?? v}`;
}
