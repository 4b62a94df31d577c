/**
 * The scenario form: every field a scenario holds (title, description, seed, horizon, the job,
 * workers and their steps — a worker's process, a step's helper —, mechanism, the lock client,
 * lease, pool, destination, the application processes with their pools, the queue, invariants, faults). It edits a
 * draft that may be invalid; each field shows its own errors, and the summary lists them all.
 */
import { useDeferredValue, type CSSProperties } from 'react';
import { INVARIANT_TEXT, LESSONS, LIMITS, faultKinds, fmtTime, mechanismSchema, type Step } from '../../sim';
import { SWITCHES, switchOptions, type SwitchOption } from '../mechanism/switches';
import type { Scenario } from '../../sim';
import { CheckField, JsonObjectField, NumField, SelectField, TextField, type FormCtx } from './fields';
import { fieldId, getIn } from './paths';
import { problemWords } from '../fields/words';
import { editSteps, type StepOp } from './stepEdits';
import { useLockscopeStore, useRun, useVisibility } from '../store';
import { invariantText } from '../verdict/invariantText';
import { describeFault, faultTimeMs } from '../faults/faultCatalog';

const STEP_KINDS: readonly Step['do'][] = ['connect', 'begin', 'acquire', 'check', 'read', 'work', 'effect', 'enqueue', 'record', 'release', 'commit', 'disconnect', 'receive', 'markClaimed', 'extendVisibility', 'ack'];
/** The queue steps (scenario version 2) in a user's words; the others read as their names. */
const STEP_LABEL: Partial<Record<Step['do'], string>> = {
  receive: 'receive (take a job from the queue)',
  markClaimed: 'mark claimed (table queue)',
  extendVisibility: 'extend the visibility (SQS)',
  ack: 'ack (DeleteMessage / mark done)',
};
const STEP_OPTIONS = STEP_KINDS.map((k) => (STEP_LABEL[k] ? { value: k, label: STEP_LABEL[k] } : k));
/** Where the workers take their job from (scenario version 2, `queue`). */
const QUEUE_KIND_OPTIONS = [
  { value: 'none', label: 'no queue' },
  { value: 'sqs', label: 'a message queue (SQS: visibility timeout, DeleteMessage)' },
  { value: 'table', label: 'a table of job rows (SELECT … FOR UPDATE SKIP LOCKED)' },
];
const DEFAULT_QUEUE: Record<string, unknown> = {
  sqs: { kind: 'sqs', name: 'jobs', visibilityTimeoutMs: 30_000, pollEveryMs: 5_000, maxEmptyReceives: 12 },
  table: { kind: 'table', table: 'job_queue', jobId: 1 },
};
const TIMED = new Set<string>(['work', 'effect']);
/** Steps whose SQL a helper may run on a second connection from the worker's pool (scenario version 2, `helper`). */
const HELPER_STEPS = new Set<string>(['check', 'read', 'effect', 'enqueue', 'record']);
/** The lessons by their titles (the catalogue's words), stored by id. */
const LESSON_OPTIONS = LESSONS.map((l) => ({ value: l.id, label: l.title }));
const M = mechanismSchema.shape;

const JOB_DEFAULTS: Record<string, unknown> = {
  insertOnce: { kind: 'insertOnce', table: 'invoices', key: { order_id: 42 }, values: { amount: 100 } },
  debit: { kind: 'debit', accountId: 1, initialBalance: 100 },
  reserve: { kind: 'reserve', itemId: 1, initialStock: 1, quantity: 1 },
  external: { kind: 'external', jobKey: 'job-1' },
  fencedRow: { kind: 'fencedRow', table: 'documents', rowId: 7, values: { body: 'report by {worker}' } },
};

/** The invariants a scenario may declare; `noWaitCycle` is checked in every run, so it has no box (a note says so). */
/** The release-in-finally switch: the editor's checkbox says it in the mechanism panel's words (label, and its judgement as a hint). */
const RELEASE_IN_FINALLY = SWITCHES.find((d) => d.id === 'releaseInFinally')!;
const INVARIANT_KINDS = (Object.keys(INVARIANT_TEXT) as (keyof typeof INVARIANT_TEXT)[]).filter((k) => k !== 'noWaitCycle');

const FAULT_FIELDS: Record<string, readonly string[]> = {
  pause: ['worker', 'pauseMs'],
  expireLease: ['worker'],
  crash: ['worker', 'restartAfterMs'],
  partition: ['worker', 'durationMs'],
  adminBypass: ['worker'],
  manualDelete: ['worker'],
  jobError: ['worker'],
  failover: ['worker'],
  clockJump: ['worker', 'jumpMs'],
  renewalStall: ['worker', 'durationMs'],
  shutdown: ['worker'],
};
const WORKER_REQUIRED = new Set(['pause', 'crash', 'partition', 'jobError', 'renewalStall', 'shutdown']);

/** The fault kinds in the user's words: each kind's label in the fault registry (the value stays the scenario's). */
const FAULT_KIND_LABEL: Record<string, string> = Object.fromEntries(faultKinds().map((d) => [d.kind, d.label]));
/** A fault's duration fields in words. */
const FAULT_FIELD_LABEL: Record<string, string> = { pauseMs: 'Pause for (ms)', restartAfterMs: 'Restart after (ms)', durationMs: 'Cut off for (ms)', jumpMs: 'Jump by (ms)' };
/** Field labels that depend on the fault kind (the same field name means another thing). */
const FAULT_FIELD_LABEL_BY_KIND: Record<string, Record<string, string>> = { renewalStall: { durationMs: 'Renewal timer stalled for (ms)' } };
/** The lock client's choices (scenario version 2, `client`) in a user's words. */
const ON_BUSY_OPTIONS = [
  { value: 'wait', label: 'wait for it (pg_advisory_lock; SET NX again and again)' },
  { value: 'skip', label: 'try once and skip the job (pg_try_advisory_lock; one SET NX)' },
  { value: 'retry', label: 'retry a few times, then fail the job' },
];
/** Isolation levels in the words PostgreSQL uses (`BEGIN ISOLATION LEVEL …`); empty = READ COMMITTED, the default. */
const ISOLATION_OPTIONS = [
  { value: 'read committed', label: 'READ COMMITTED (the default)' },
  { value: 'repeatable read', label: 'REPEATABLE READ' },
  { value: 'serializable', label: 'SERIALIZABLE' },
];
const RENEW_FROM_OPTIONS = [
  { value: 'grant', label: 'when the lock is granted' },
  { value: 'firstAttempt', label: 'at the first acquire attempt' },
];
/** The job kinds in words. */
const JOB_KIND_LABEL: Record<string, string> = { insertOnce: 'insert one row (e.g. an invoice)', debit: 'debit a balance', reserve: 'reserve stock', external: 'an external effect (file, API)', fencedRow: 'update one row the lock protects (the database is fenced)' };
/** Where the fencing token comes from (`mechanism.fenceSource`; absent = Redis INCR), in a user's words: with the lease in Redis, or in etcd. */
const FENCE_SOURCE_OPTIONS = [
  { value: 'redis-incr', label: 'Redis INCR (in the lock\'s Redis)' },
  { value: 'db-sequence', label: "database sequence (nextval('fence_seq'))" },
];
const ETCD_FENCE_SOURCE_OPTIONS = [
  { value: 'lock-service-revision', label: 'etcd revision issued with the grant' },
  { value: 'db-sequence', label: "database sequence (nextval('fence_seq'))" },
];
/** Where the lease lives (`lockService`; absent = Redis), in a user's words. */
const LOCK_SERVICE_OPTIONS = [{ value: 'etcd', label: 'etcd (lease grant, txn, keep-alive; its revision as the token)' }];
/** A scenario whose lease lives in etcd, for the switches' etcd options (they read only `lockService`). */
const ETCD_SCENARIO = { lockService: { kind: 'etcd' } } as unknown as Scenario;

/**
 * The mechanism selects with the labels the simulator's switches show (the value stays the
 * scenario's); with the lease in etcd, only the values etcd has (keep-alive, revoke), in its words.
 */
function mechanismOptions(id: string, etcd = false): readonly { value: string; label: string }[] {
  const d = SWITCHES.find((x) => x.id === id);
  const values = (M as unknown as Record<string, { options: readonly string[] }>)[id]!.options;
  const offered: readonly SwitchOption[] | undefined = d && etcd ? switchOptions(d, ETCD_SCENARIO) : d?.options;
  const shown = etcd && offered !== undefined ? values.filter((v) => offered.some((o) => o.value === v)) : values;
  return shown.map((v) => ({ value: v, label: offered?.find((o) => o.value === v)?.label ?? v }));
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const arr = (v: unknown): unknown[] | null => (Array.isArray(v) ? v : null);
const str = (v: unknown, d = '?') => (typeof v === 'string' ? v : d);

function move<T>(list: readonly T[], i: number, d: number): T[] {
  const j = i + d;
  if (j < 0 || j >= list.length) return [...list];
  const out = [...list];
  [out[i], out[j]] = [out[j]!, out[i]!];
  return out;
}

function NotAList({ what }: { what: string }) {
  return <p className="field-error">{what} is not a list: fix it in the JSON view.</p>;
}

/** A list too long to show as form rows (hostile or mistaken input): say so instead of rendering it. */
function TooMany({ what, n, max }: { what: string; n: number; max: number }) {
  return <p className="field-error">{what} has {n} items, over the limit of {max}: remove some in the JSON view.</p>;
}

/** Error summary: every problem, each a button that focuses its field when the form has one. */
export function ErrorSummary({ ctx }: { ctx: FormCtx }) {
  if (ctx.errors.length === 0) return null;
  return (
    <div className="error-summary" role="alert" data-testid="editor-errors">
      <p><strong>{ctx.errors.length} problem{ctx.errors.length === 1 ? '' : 's'}.</strong> The last valid scenario keeps running until they are fixed.</p>
      <ul>
        {ctx.errors.slice(0, 20).map((e, i) => (
          <li key={i}>
            <button type="button" className="link" onClick={() => document.getElementById(fieldId(e.path))?.focus()}>{problemWords(e.path, e.message).text}</button> <code>{e.path}</code>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The whole form. */
export function ScenarioForm({ ctx }: { ctx: FormCtx }) {
  const store = useLockscopeStore();
  const run = useRun();
  // The candidate of an interview reads neutral labels: a judgement ("a bug") or a fix ("a sequence is durable") only with the hints.
  const { showHints } = useVisibility();
  // Moving or removing a step keeps the faults placed at steps on their own step (see stepEdits.ts).
  const stepEdit = (workerIndex: number, stepsPath: string, op: StepOp, fallback: unknown[]) => {
    if (!ctx.replace) return ctx.edit(stepsPath, fallback);
    const running = run.scenario;
    const r = editSteps(ctx.draft, workerIndex, op, (i) => (running.faults[i] ? faultTimeMs(running.faults[i], i, run) : null), (i) => (running.faults[i] ? `Fault ${i + 1} (${describeFault(running.faults[i], running)})` : `Fault ${i + 1}`));
    ctx.replace(r.value, stepsPath);
    if (r.notices.length > 0) store.getState().showNotice('A fault was placed at the step you removed', r.notices);
  };
  const d = ctx.draft;
  const job = getIn(d, ['job']);
  const jobKind = isObj(job) ? str(job.kind, '') : '';
  const mechanism = getIn(d, ['mechanism']);
  const xactLocks = isObj(mechanism) && mechanism.lock === 'advisory-xact';
  const workers = arr(getIn(d, ['workers']));
  const invariants = arr(getIn(d, ['invariants']));
  const queueKindRaw = getIn(d, ['queue', 'kind']);
  const queueKind = queueKindRaw === 'sqs' || queueKindRaw === 'table' ? queueKindRaw : 'none';
  const faults = arr(getIn(d, ['faults']));
  const etcd = getIn(d, ['lockService', 'kind']) === 'etcd';
  // Each id once: a hand-edited draft may repeat one (validation says so), and a fault's worker list offers it once.
  const workerIds = [...new Set((workers ?? []).map((w) => (isObj(w) ? str(w.id, '') : '')).filter(Boolean))];
  const processes = arr(getIn(d, ['processes']));
  const processIds = (processes ?? []).map((x) => (isObj(x) ? str(x.id, '') : '')).filter(Boolean);
  // Opening Edit draws the first screen (the scenario, the job, the workers) in the click's frame,
  // and the sections below it in a transition React renders right after, in slices that yield to
  // the browser (useDeferredValue's initial value): the whole form in one task took 60–170 ms on
  // a busy 2-core machine. Later renders (every edit) draw the whole form at once.
  const full = useDeferredValue(true, false);

  return (
    <form className="editor-form" aria-label="Scenario form" onSubmit={(e) => e.preventDefault()} noValidate aria-busy={!full} data-complete={full}>
      <ErrorSummary ctx={ctx} />
      <fieldset>
        <legend>Scenario</legend>
        <TextField ctx={ctx} path="title" label="Title" />
        <TextField ctx={ctx} path="description" label="Description" multiline />
        <div className="row">
          <SelectField ctx={ctx} path="lesson" label="Lesson" options={LESSON_OPTIONS} />
          <NumField ctx={ctx} path="seed" label="Seed" hint="0 – 2147483647" />
          <NumField ctx={ctx} path="horizonMs" label="Horizon (ms)" hint={`at most ${fmtTime(LIMITS.maxHorizonMs)}`} />
        </div>
      </fieldset>

      <fieldset>
        <legend>Job</legend>
        <SelectField ctx={ctx} path="job.kind" label="Kind" options={Object.keys(JOB_DEFAULTS).map((v) => ({ value: v, label: JOB_KIND_LABEL[v] ?? v }))} onPick={(v) => JOB_DEFAULTS[v] && ctx.edit('job', JOB_DEFAULTS[v])} />
        {jobKind === 'insertOnce' && (
          <div className="row">
            <TextField ctx={ctx} path="job.table" label="Table" />
            <JsonObjectField ctx={ctx} path="job.key" label="Business key (JSON)" />
            <JsonObjectField ctx={ctx} path="job.values" label="Other columns (JSON)" />
          </div>
        )}
        {jobKind === 'debit' && (
          <div className="row">
            <NumField ctx={ctx} path="job.accountId" label="Account id" />
            <NumField ctx={ctx} path="job.initialBalance" label="Initial balance" />
          </div>
        )}
        {jobKind === 'reserve' && (
          <div className="row">
            <NumField ctx={ctx} path="job.itemId" label="Item id" />
            <NumField ctx={ctx} path="job.initialStock" label="Initial stock" />
            <NumField ctx={ctx} path="job.quantity" label="Quantity per worker" />
          </div>
        )}
        {jobKind === 'external' && <TextField ctx={ctx} path="job.jobKey" label="Job key" />}
        {jobKind === 'fencedRow' && (
          <div className="row">
            <TextField ctx={ctx} path="job.table" label="Table" />
            <NumField ctx={ctx} path="job.rowId" label="Row id" />
            <JsonObjectField ctx={ctx} path="job.values" label="Columns the effect writes (JSON; {worker} = the worker's id)" />
          </div>
        )}
      </fieldset>

      <fieldset>
        <legend>Workers</legend>
        {workers === null ? <NotAList what="workers" /> : workers.length > LIMITS.maxWorkers ? <TooMany what="workers" n={workers.length} max={LIMITS.maxWorkers} /> : workers.map((w, i) => {
          const id = isObj(w) ? str(w.id) : '?';
          const steps = arr(isObj(w) ? w.steps : null);
          const p = `workers[${i}]`;
          return (
            <fieldset key={i} className="worker-box">
              <legend>Worker {id}</legend>
              <div className="row">
                <TextField ctx={ctx} path={`${p}.id`} label="Id" />
                <NumField ctx={ctx} path={`${p}.startMs`} label="Starts at (ms)" />
                {jobKind === 'debit' && <NumField ctx={ctx} path={`${p}.amount`} label="Amount" optional />}
                {(processes !== null || (isObj(w) && w.process !== undefined)) && (
                  <SelectField ctx={ctx} path={`${p}.process`} label="Runs in process" hint="borrows only from that process's pool" options={processIds} optional emptyLabel="none (the shared pool)" />
                )}
              </div>
              <p className="steps-head">Steps</p>
              {i === 0 && <p className="small muted">A step &ldquo;in a helper on a second connection&rdquo; calls code that borrows its own connection from the same pool while the worker keeps its one (and its transaction) and waits for it.</p>}
              {steps === null ? <NotAList what={`${p}.steps`} /> : steps.length > LIMITS.maxStepsPerWorker ? <TooMany what={`${p}.steps`} n={steps.length} max={LIMITS.maxStepsPerWorker} /> : (
                <ol className="steps">
                  {steps.map((st, j) => {
                    const sp = `${p}.steps[${j}]`;
                    const kind = isObj(st) ? str(st.do, '') : '';
                    return (
                      <li key={j} className="step-row">
                        <SelectField ctx={ctx} path={`${sp}.do`} label={<span className="sr-only">Worker {id} step {j + 1}</span>} options={STEP_OPTIONS}
                          onPick={(v) => ctx.edit(sp, TIMED.has(v) ? { do: v, ms: isObj(st) && typeof st.ms === 'number' ? st.ms : 1000 } : { do: v })} />
                        {TIMED.has(kind) && <NumField ctx={ctx} path={`${sp}.ms`} label={<span className="sr-only">Worker {id} step {j + 1} duration (ms)</span>} hint="ms" />}
                        {kind === 'begin' && <SelectField ctx={ctx} path={`${sp}.isolation`} label={<span className="sr-only">Worker {id} step {j + 1} isolation level</span>} hint="isolation (empty: the database's)" options={ISOLATION_OPTIONS} optional />}
                        {HELPER_STEPS.has(kind) && <CheckField ctx={ctx} path={`${sp}.helper`} label={<>in a helper on a second connection<span className="sr-only"> (worker {id} step {j + 1})</span></>} />}
                        {kind === 'acquire' && (xactLocks || (isObj(st) && st.advisoryKey !== undefined)) && <NumField ctx={ctx} path={`${sp}.advisoryKey`} label={<span className="sr-only">Worker {id} step {j + 1} advisory lock key</span>} hint="key (empty: the mechanism's)" optional />}
                        <span className="step-tools">
                          <button type="button" onClick={() => stepEdit(i, `${p}.steps`, { kind: 'move', index: j, delta: -1 }, move(steps, j, -1))} disabled={j === 0} aria-label={`Move worker ${id} step ${j + 1} up`}>↑</button>
                          <button type="button" onClick={() => stepEdit(i, `${p}.steps`, { kind: 'move', index: j, delta: 1 }, move(steps, j, 1))} disabled={j === steps.length - 1} aria-label={`Move worker ${id} step ${j + 1} down`}>↓</button>
                          <button type="button" className="danger" onClick={() => stepEdit(i, `${p}.steps`, { kind: 'remove', index: j }, steps.filter((_, k) => k !== j))} aria-label={`Remove worker ${id} step ${j + 1}`}>✕</button>
                        </span>
                      </li>
                    );
                  })}
                </ol>
              )}
              <div className="box-tools">
                <button type="button" onClick={() => ctx.edit(`${p}.steps`, [...(steps ?? []), { do: 'work', ms: 1000 }])} disabled={(steps?.length ?? 0) >= LIMITS.maxStepsPerWorker}>Add step</button>
                <button type="button" onClick={() => ctx.edit('workers', move(workers, i, -1))} disabled={i === 0}>Move {id} up</button>
                <button type="button" onClick={() => ctx.edit('workers', move(workers, i, 1))} disabled={i === workers.length - 1}>Move {id} down</button>
                <button type="button" className="danger" onClick={() => ctx.edit('workers', workers.filter((_, k) => k !== i))} >Remove worker {id}</button>
              </div>
            </fieldset>
          );
        })}
        {workers !== null && workers.length <= LIMITS.maxWorkers && (
          <button type="button" disabled={workers.length >= LIMITS.maxWorkers} onClick={() => {
            const last = workers.at(-1);
            let n = workers.length;
            let id = String.fromCharCode(65 + (n % 26));
            while (workerIds.includes(id)) id = `W${++n}`;
            ctx.edit('workers', [...workers, { ...(isObj(last) ? last : { startMs: 0, steps: [{ do: 'work', ms: 1000 }] }), id }]);
          }}>Add worker</button>
        )}
      </fieldset>

      {/* The sections below the first screen (Mechanism onwards), rendered just after it: see `full`. */}
      {full && (<>
      <fieldset>
        <legend>Mechanism</legend>
        <div className="row wrap">
          <SelectField ctx={ctx} path="mechanism.lock" label="Lock taken by acquire" options={mechanismOptions('lock', etcd)} />
          <SelectField
            ctx={ctx} path="lockService.kind" label="The lease lives in" optional emptyLabel="Redis (SET NX PX)"
            hint="etcd: a lease kept alive by its holder, the lock key put with it in one transaction; the key goes when the lease runs out"
            options={LOCK_SERVICE_OPTIONS}
            onPick={(v) => {
              const mech = getIn(ctx.draft, ['mechanism']);
              const source = isObj(mech) ? mech.fenceSource : undefined;
              if (!ctx.replace || !isObj(ctx.draft) || !isObj(mech)) return ctx.edit('lockService', v === '' ? undefined : { kind: v });
              // The token moves with the lease: etcd's revision (Redis INCR has no Redis next to an etcd lease), or back to INCR.
              const { lockService: _, ...rest } = ctx.draft;
              const { fenceSource: __, ...mechRest } = mech;
              ctx.replace(v === ''
                ? { ...rest, mechanism: source === 'lock-service-revision' ? mechRest : mech }
                : { ...ctx.draft, lockService: { kind: v }, mechanism: source === 'db-sequence' ? mech : { ...mech, fenceSource: 'lock-service-revision' } }, 'lockService.kind');
            }}
          />
          <NumField ctx={ctx} path="mechanism.advisoryKey" label="Advisory lock key" />
          <SelectField ctx={ctx} path="mechanism.rowLock" label="Row lock on read" options={mechanismOptions('rowLock')} />
          <SelectField ctx={ctx} path="mechanism.onConflict" label="On a unique conflict" options={mechanismOptions('onConflict')} />
          <SelectField ctx={ctx} path="mechanism.release" label="Lease release" options={mechanismOptions('release', etcd)} />
          <SelectField ctx={ctx} path="mechanism.renewal" label="Lease renewal" options={mechanismOptions('renewal', etcd)} />
          <SelectField ctx={ctx} path="mechanism.onError" label="On a job error" options={mechanismOptions('onError')} />
          <NumField ctx={ctx} path="mechanism.acquireTimeoutMs" label="Give up acquiring after (ms)" hint="lock_timeout for advisory locks; empty = wait for ever" nullable />
          <SelectField ctx={ctx} path="mechanism.fenceSource" label="Fencing token from" options={etcd ? ETCD_FENCE_SOURCE_OPTIONS : FENCE_SOURCE_OPTIONS} absentAs="redis-incr" hint={!showHints ? undefined : etcd ? 'the revision of the put that took the lock only grows' : 'a Redis failover can lose an INCR counter; a sequence is durable'} />
        </div>
        <div className="row wrap">
          <CheckField ctx={ctx} path="mechanism.uniqueKey" label="UNIQUE key on the business key" />
          <CheckField ctx={ctx} path="mechanism.checkConstraint" label="CHECK (stock >= 0)" />
          <CheckField ctx={ctx} path="mechanism.stopOnRenewFailure" label="Stop when a renewal fails" />
          <CheckField ctx={ctx} path="mechanism.fencing" label="Fencing token with the lease" />
          <CheckField ctx={ctx} path="mechanism.idempotencyKey" label="Send an idempotency key" />
          <CheckField ctx={ctx} path="mechanism.jobRecord" label="Check the durable job record first" />
          <CheckField ctx={ctx} path="mechanism.releaseInFinally" label={RELEASE_IN_FINALLY.label} hint={showHints ? RELEASE_IN_FINALLY.hints?.true : undefined} />
        </div>
      </fieldset>

      <fieldset>
        <legend>Lock client (how the library behaves)</legend>
        <div className="row wrap">
          <SelectField ctx={ctx} path="client.onBusy" label="When someone else holds the lock" options={ON_BUSY_OPTIONS} />
          {getIn(d, ['client', 'onBusy']) === 'retry' && <NumField ctx={ctx} path="client.retries" label="Retries after the first try" hint="each after the lease's retry interval" />}
          <SelectField ctx={ctx} path="client.renewFrom" label="Renewal timer starts" options={RENEW_FROM_OPTIONS} />
          <NumField ctx={ctx} path="client.renewMarginMs" label="Renew this much early (ms)" hint="safety margin, less than Renew every" />
        </div>
        <div className="row wrap">
          <CheckField ctx={ctx} path="client.checkRelease" label="Fail the job when the unlock says the lock was not ours" hint="pg_advisory_unlock → f; compare-and-delete → 0" />
        </div>
      </fieldset>

      <fieldset>
        <legend>{etcd ? 'Lease (etcd)' : 'Lease (Redis)'}</legend>
        <div className="row wrap">
          <TextField ctx={ctx} path="lease.key" label={etcd ? 'Lock key' : 'Key'} />
          {!etcd && <TextField ctx={ctx} path="lease.fenceKey" label="Fencing counter key" />}
          <NumField ctx={ctx} path="lease.fenceStart" label={etcd ? 'Store revision before the run' : 'Counter start'} hint={etcd ? 'the first lock taken gets this + 1' : undefined} />
          <NumField ctx={ctx} path="lease.ttlMs" label="TTL (ms)" hint={etcd ? 'whole seconds: etcd grants leases in seconds (at least 2 s)' : undefined} />
          <NumField ctx={ctx} path="lease.retryEveryMs" label="Retry every (ms)" />
          <NumField ctx={ctx} path="lease.renewEveryMs" label={etcd ? 'Keep-alive every (ms)' : 'Renew every (ms)'} />
          {!etcd && <NumField ctx={ctx} path="lease.replicationLagMs" label="Replication lag (ms)" />}
        </div>
      </fieldset>

      <fieldset>
        <legend>Database and destination</legend>
        <div className="row wrap">
          <NumField ctx={ctx} path="database.poolSize" label="Connection pool size" />
          <NumField ctx={ctx} path="database.deadlockTimeoutMs" label="deadlock_timeout (ms)" hint="a lock wait this long runs PostgreSQL's deadlock check; empty = 1000 ms, PostgreSQL's default" optional />
          <NumField ctx={ctx} path="database.statementTimeoutMs" label="Statement timeout (ms)" hint="statement_timeout: a statement still waiting this long fails with 57014; empty = off" optional />
          <NumField ctx={ctx} path="database.idleInTransactionSessionTimeoutMs" label="Idle-in-transaction timeout (ms)" hint="idle_in_transaction_session_timeout: the server ends a session idle this long inside a transaction, releasing its locks; empty = off" optional />
          <SelectField ctx={ctx} path="database.isolation" label="Isolation level" hint="of every transaction a begin step opens; a step may choose its own" options={ISOLATION_OPTIONS} optional />
          <NumField ctx={ctx} path="database.serializationRetries" label="Retry the transaction on serialization failure" hint="times the framework re-runs a transaction that failed with 40001, from BEGIN — every step inside it again; empty = never" optional />
          <SelectField
            ctx={ctx} path="database.pooler.mode" label="Pooler" optional emptyLabel="none"
            hint="PgBouncer between the pool and PostgreSQL; in transaction mode a session lock stays with the server connection"
            options={[{ value: 'session', label: 'PgBouncer session mode' }, { value: 'transaction', label: 'PgBouncer transaction mode' }]}
            onPick={(v) => {
              const db = getIn(ctx.draft, ['database']);
              const pooler = isObj(db) && isObj(db.pooler) ? db.pooler : {};
              const poolSize = isObj(db) && typeof db.poolSize === 'number' ? db.poolSize : 2;
              ctx.edit('database.pooler', v === '' ? undefined : { serverConnections: poolSize, ...pooler, mode: v });
            }}
          />
          {isObj(getIn(ctx.draft, ['database', 'pooler'])) && (
            <NumField ctx={ctx} path="database.pooler.serverConnections" label="PgBouncer server connections" hint="default_pool_size: backends PgBouncer opens; a client waits when all are in use" />
          )}
          <SelectField ctx={ctx} path="destination.kind" label="Destination" options={[{ value: 'file', label: 'file store' }, { value: 'api', label: 'external API' }]} />
          <TextField ctx={ctx} path="destination.target" label="Target (path or endpoint)" />
        </div>
        <div className="row wrap">
          <CheckField ctx={ctx} path="destination.checksFencing" label={jobKind === 'fencedRow' ? 'The UPDATE checks the fence (AND fence < $token)' : 'Destination checks fencing tokens'} />
          <CheckField ctx={ctx} path="destination.honoursIdempotencyKeys" label="Destination honours idempotency keys" />
        </div>
      </fieldset>

      <fieldset>
        <legend>Application processes (a connection pool each)</legend>
        {processes === null ? (
          getIn(d, ['processes']) === undefined
            ? <p className="small muted">None: every worker borrows from the shared pool (Connection pool size, above). Add a process to give a group of workers a pool of its own, as each web or worker process of an app has.</p>
            : <NotAList what="processes" />
        ) : processes.map((x, i) => {
          const pp = `processes[${i}]`;
          const pid = isObj(x) ? str(x.id) : '?';
          return (
            <div key={i} className="row wrap">
              <TextField ctx={ctx} path={`${pp}.id`} label="Process name" />
              <NumField ctx={ctx} path={`${pp}.poolSize`} label="Its pool size" hint="connections (node-postgres max, HikariCP maximumPoolSize)" />
              <NumField ctx={ctx} path={`${pp}.acquireTimeoutMs`} label="Give up waiting for a connection after (ms)" hint="the pool's acquire timeout (connectionTimeoutMillis, connectionTimeout): the job fails; empty = wait for ever" optional />
              <button type="button" className="danger" onClick={() => {
                const rest = processes.filter((_, k) => k !== i);
                // Workers of the removed process go back to the shared pool.
                const ws = (workers ?? []).map((w) => (isObj(w) && w.process === pid ? Object.fromEntries(Object.entries(w).filter(([k]) => k !== 'process')) : w));
                if (ctx.replace && isObj(d)) ctx.replace({ ...Object.fromEntries(Object.entries(d).filter(([k]) => k !== 'processes')), ...(rest.length > 0 ? { processes: rest } : {}), workers: ws }, 'processes');
                else ctx.edit('processes', rest.length > 0 ? rest : undefined);
              }}>Remove process {pid}</button>
            </div>
          );
        })}
        {(processes !== null || getIn(d, ['processes']) === undefined) && (
          <button type="button" disabled={(processes?.length ?? 0) >= LIMITS.maxWorkers} onClick={() => {
            let n = (processes?.length ?? 0) + 1;
            while (processIds.includes(`web-${n}`)) n += 1;
            ctx.edit('processes', [...(processes ?? []), { id: `web-${n}`, poolSize: 2 }]);
          }}>Add process</button>
        )}
        {ctx.errors.filter((e) => e.path === 'processes').map((e, i) => <p key={i} className="field-error">{problemWords(e.path, e.message).text}</p>)}
      </fieldset>

      <fieldset>
        <legend>Queue (where the job comes from)</legend>
        <div className="row wrap">
          {/* As wide as its longest choice needs (SelectField's --option-ch): it shows whole at 1280 (first-minutes.spec.ts). */}
          <div className={`field${ctx.errors.some((e) => e.path === 'queue.kind') ? ' invalid' : ''}`} style={{ '--option-ch': Math.max(...QUEUE_KIND_OPTIONS.map((o) => o.label.length)) } as CSSProperties}>
            <label htmlFor="queue-kind">The workers take their job from</label>
            <select id="queue-kind" value={queueKind} onChange={(e) => ctx.edit('queue', e.target.value === 'none' ? undefined : DEFAULT_QUEUE[e.target.value])}>
              {QUEUE_KIND_OPTIONS.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
            </select>
            {ctx.errors.filter((e) => e.path === 'queue.kind').map((e, i) => <p key={i} className="field-error">{problemWords(e.path, e.message).text}</p>)}
          </div>
          {queueKind === 'sqs' && <>
            <TextField ctx={ctx} path="queue.name" label="Queue name" />
            <NumField ctx={ctx} path="queue.visibilityTimeoutMs" label="Visibility timeout (ms)" hint="whole seconds: a message received and not deleted this long goes to the next consumer" />
            <NumField ctx={ctx} path="queue.pollEveryMs" label="Ask again after an empty receive (ms)" />
            <NumField ctx={ctx} path="queue.maxEmptyReceives" label="Stop after this many empty receives" />
          </>}
          {queueKind === 'table' && <>
            <TextField ctx={ctx} path="queue.table" label="Job table" />
            <NumField ctx={ctx} path="queue.jobId" label="Job row id" hint="claimed with the mechanism's row lock (FOR UPDATE SKIP LOCKED)" />
          </>}
        </div>
        {queueKind === 'sqs' && <div className="row wrap">
          <NumField ctx={ctx} path="queue.stalledCheckEveryMs" label="Stalled-job checker runs every (ms)" hint="a timed-out job returns only when it runs (BullMQ); empty: at the timeout (SQS)" optional nullable />
          <NumField ctx={ctx} path="queue.retryBackoffMs" label="On a job error, retry after (ms)" hint="doubled for each earlier delivery; empty: wait out the visibility timeout" optional nullable />
        </div>}
        {ctx.errors.filter((e) => e.path === 'queue').map((e, i) => <p key={i} className="field-error">{problemWords(e.path, e.message).text}</p>)}
      </fieldset>

      <fieldset>
        <legend>Invariants (what must never happen)</legend>
        {invariants === null ? <NotAList what="invariants" /> : (
          <ul className="invariant-list">
            {INVARIANT_KINDS.map((kind) => {
              const idx = invariants.findIndex((x) => isObj(x) && x.kind === kind);
              const id = fieldId(`inv-${kind}`);
              return (
                <li key={kind}>
                  <div className="field check">
                    <input id={id} type="checkbox" checked={idx >= 0} onChange={(e) => ctx.edit('invariants', e.target.checked
                      ? [...invariants, kind === 'effectOnce' ? { kind, harmless: false } : kind === 'boundedWait' ? { kind, maxWaitMs: 10_000 } : kind === 'jobCompletesWithin' ? { kind, withinMs: 60_000 } : { kind }]
                      : invariants.filter((_, k) => k !== idx))} />
                    <label htmlFor={id}>{invariantText(kind, showHints)}</label>
                  </div>
                  {idx >= 0 && kind === 'effectOnce' && <CheckField ctx={ctx} path={`invariants[${idx}].harmless`} label="Duplicates are harmless (report as redundant)" />}
                  {idx >= 0 && kind === 'boundedWait' && <NumField ctx={ctx} path={`invariants[${idx}].maxWaitMs`} label="Longest allowed wait (ms)" />}
                  {idx >= 0 && kind === 'jobCompletesWithin' && <NumField ctx={ctx} path={`invariants[${idx}].withinMs`} label="Every delivered job completes within (ms)" hint="from its first delivery to its ack" />}
                </li>
              );
            })}
          </ul>
        )}
        {ctx.errors.filter((e) => e.path === 'invariants').map((e, i) => <p key={i} className="field-error">{problemWords(e.path, e.message).text}</p>)}
        <p className="small muted">Always checked: {INVARIANT_TEXT.noWaitCycle.replace(' (always checked)', '')} — workers waiting for each other partly outside the database hang, since PostgreSQL&apos;s deadlock check cannot see them.</p>
      </fieldset>

      <fieldset>
        <legend>Faults</legend>
        {faults === null ? <NotAList what="faults" /> : faults.length > LIMITS.maxFaults ? <TooMany what="faults" n={faults.length} max={LIMITS.maxFaults} /> : faults.map((f, i) => {
          const p = `faults[${i}]`;
          const kind = isObj(f) ? str(f.kind, '') : '';
          return (
            <fieldset key={i} className="fault-box">
              <legend>Fault {i + 1}: {FAULT_KIND_LABEL[kind] ?? (kind || '?')}</legend>
              <div className="row wrap">
                <SelectField ctx={ctx} path={`${p}.kind`} label="Kind" options={Object.keys(FAULT_FIELDS).map((v) => ({ value: v, label: FAULT_KIND_LABEL[v] ?? v }))}
                  onPick={(v) => ctx.edit(p, defaultFault(v, workerIds[0] ?? 'A', isObj(f) && typeof f.atMs === 'number' ? f.atMs : 1000))} />
                {(FAULT_FIELDS[kind] ?? []).map((k) => k === 'worker'
                  ? <SelectField key={k} ctx={ctx} path={`${p}.worker`} label="Worker" options={workerIds} optional={!WORKER_REQUIRED.has(kind)} />
                  : <NumField key={k} ctx={ctx} path={`${p}.${k}`} label={FAULT_FIELD_LABEL_BY_KIND[kind]?.[k] ?? FAULT_FIELD_LABEL[k] ?? `${k.replace(/Ms$/, '')} (ms)`} nullable={k === 'restartAfterMs'} />)}
                <NumField ctx={ctx} path={`${p}.atMs`} label="At (ms)" optional />
                <NumField ctx={ctx} path={`${p}.step`} label="Or before/after step" optional offset={1} hint="1 = the worker's first step" />
                <SelectField ctx={ctx} path={`${p}.phase`} label="Phase" options={['before', 'after']} optional />
                <button type="button" className="danger" onClick={() => ctx.edit('faults', faults.filter((_, k) => k !== i))} aria-label={`Remove fault ${i + 1}`}>Remove</button>
              </div>
            </fieldset>
          );
        })}
        {faults !== null && faults.length <= LIMITS.maxFaults && <button type="button" disabled={faults.length >= LIMITS.maxFaults} onClick={() => ctx.edit('faults', [...faults, defaultFault('pause', workerIds[0] ?? 'A', 1000)])}>Add fault</button>}
      </fieldset>
      </>)}
    </form>
  );
}

function defaultFault(kind: string, worker: string, atMs: number): unknown {
  switch (kind) {
    case 'pause': return { kind, worker, atMs, pauseMs: 10_000 };
    case 'crash': return { kind, worker, atMs, restartAfterMs: null };
    case 'partition': return { kind, worker, atMs, durationMs: 10_000 };
    case 'jobError': return { kind, worker, atMs };
    case 'shutdown': return { kind, worker, atMs };
    case 'clockJump': return { kind, atMs, jumpMs: 10_000 };
    case 'renewalStall': return { kind, worker, atMs, durationMs: 10_000 };
    default: return { kind, atMs };
  }
}
