/**
 * Scenario validation: zod for shapes and bounds, then the cross-field rules zod cannot see
 * (worker ids unique, faults naming existing workers and steps, faults inside the run). Every
 * error names the field path and the rule, e.g. `faults[2].pauseMs: must be ≥ 1`.
 */
import type { z } from 'zod';
import { scenarioSchema, type Scenario } from './schema';
import { reservedFaultActors } from '../faults/registry';
import { fmtTime } from '../engine/fmt';
import { resourceDefs } from '../resources/resource';
// The built-in resources must be registered before their actor ids are read.
import '../resources/builtinResources';

/**
 * Actor ids that are not workers' (each with what uses it): every fault kind's actor (`admin`,
 * `operator`, `fault`: src/sim/faults/registry.ts) and every resource's name (`redis` announces
 * expiries as its own actor). A worker named like one would share its lane and events — the
 * admin-script fault would even run as that worker — so validation refuses such ids.
 */
export function reservedActorIds(): ReadonlyMap<string, string> {
  const out = new Map(reservedFaultActors());
  for (const def of resourceDefs()) if (!out.has(def.name)) out.set(def.name, `the ${def.name} resource's events`);
  return out;
}

/** One validation problem: where (`faults[2].pauseMs`) and what rule it breaks. */
export interface ValidationError {
  readonly path: string;
  readonly message: string;
}

/** The outcome of validation: a scenario, or every problem found. */
export type ValidationResult = { readonly ok: true; readonly scenario: Scenario } | { readonly ok: false; readonly errors: readonly ValidationError[] };

/** Renders a path like `["faults", 2, "pauseMs"]` as `faults[2].pauseMs` (`(root)` when empty). */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out === '' ? '(root)' : out;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'too_small':
      if (issue.origin === 'array') return `must have at least ${String(issue.minimum)} item(s)`;
      if (issue.origin === 'string') return `must be at least ${String(issue.minimum)} character(s)`;
      return `must be ${issue.inclusive === false ? '>' : '≥'} ${String(issue.minimum)}`;
    case 'too_big':
      if (issue.origin === 'array') return `must have at most ${String(issue.maximum)} item(s)`;
      if (issue.origin === 'string') return `must be at most ${String(issue.maximum)} characters`;
      return `must be ${issue.inclusive === false ? '<' : '≤'} ${String(issue.maximum)}`;
    case 'invalid_type':
      return issue.expected === 'int' ? 'must be an integer' : `must be ${issue.expected === 'array' ? 'an array' : `a ${issue.expected}`}`;
    case 'invalid_value':
      return issue.values.length === 1 ? `must be ${JSON.stringify(issue.values[0])}` : `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'unrecognized_keys':
      return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`;
    case 'invalid_union':
      return 'does not match any allowed form';
    default:
      return issue.message;
  }
}

/** Turns zod issues into `{ path, message }` pairs with our wording. */
export function formatZodIssues(issues: readonly z.core.$ZodIssue[]): ValidationError[] {
  return issues.map((issue) => {
    // discriminatedUnion reports a bad tag at the union; name the tag field.
    if (issue.code === 'invalid_union' && issue.errors.length === 0 && 'discriminator' in issue && typeof issue.discriminator === 'string') {
      const path = issue.path[issue.path.length - 1] === issue.discriminator ? issue.path : [...issue.path, issue.discriminator];
      const options = 'options' in issue && Array.isArray(issue.options) ? (issue.options as unknown[]).map((o) => JSON.stringify(o)) : [];
      return { path: formatPath(path), message: options.length > 0 ? `is not a known kind; use one of ${options.join(', ')}` : 'is not a known kind' };
    }
    return { path: formatPath(issue.path), message: describeIssue(issue) };
  });
}

/**
 * Validates unknown input (parsed JSON) as a scenario of the current version (files and links
 * go through `parseScenario`, which migrates older versions first). Never throws: bad input of any
 * shape yields `{ ok: false, errors }`.
 */
export function validateScenario(input: unknown): ValidationResult {
  const parsed = scenarioSchema.safeParse(input);
  if (!parsed.success) {
    const errors = formatZodIssues(parsed.error.issues);
    return { ok: false, errors: [...errors, ...crossFieldErrorsDespite(input, errors)] };
  }
  const errors = crossFieldErrors(parsed.data);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, scenario: parsed.data };
}

/**
 * The rules across fields, for input that failed the schema: zod runs no rule across fields once a
 * field is wrong, so a scenario with a fault placed after the run and a Lease TTL of 0 listed only
 * the TTL — and the editor dropped the fault's message it had shown a moment before. Each rule
 * whose fields the schema accepted still reports; one that names a field the schema rejected (a
 * fault "after horizonMs" when horizonMs itself is wrong), or that the input's shape keeps from
 * running at all, says nothing.
 */
function crossFieldErrorsDespite(input: unknown, schemaErrors: readonly ValidationError[]): ValidationError[] {
  let found: ValidationError[];
  try {
    found = crossFieldErrors(input as Scenario);
  } catch {
    return [];
  }
  const wrong = schemaErrors.map((e) => e.path);
  const overlaps = (a: string, b: string): boolean => a === b || a.startsWith(`${b}.`) || a.startsWith(`${b}[`) || b.startsWith(`${a}.`) || b.startsWith(`${a}[`);
  // A rule's message names the other fields it compares (e.g. "must be ≤ horizonMs (90000)").
  const names = (e: ValidationError, path: string): boolean => {
    const field = /([A-Za-z_]\w{3,})$/.exec(path)?.[1];
    return field !== undefined && new RegExp(`\\b${field}\\b`).test(e.message);
  };
  return found.filter((e) => wrong.every((w) => !overlaps(e.path, w) && !names(e, w)));
}

/** Rules across fields: a fenced row's values without `id`/`fence` and not in `jobs`, unique worker ids not reserved for a fault's or a resource's actor, a step's advisoryKey only with transaction-scoped advisory locks, a `commit` only after a `begin` that opened a transaction, faults naming real workers/steps and placed inside the run. */
export function crossFieldErrors(s: Scenario): ValidationError[] {
  const errors: ValidationError[] = [];
  const ids = new Map<string, number>();
  s.workers.forEach((w, i) => {
    const reservedFor = reservedActorIds().get(w.id);
    if (reservedFor !== undefined) errors.push({ path: `workers[${i}].id`, message: `"${w.id}" is reserved for ${reservedFor}; give the worker another id` });
    if (ids.has(w.id)) errors.push({ path: `workers[${i}].id`, message: `duplicates workers[${ids.get(w.id)}].id "${w.id}"` });
    else ids.set(w.id, i);
    if (w.startMs > s.horizonMs) errors.push({ path: `workers[${i}].startMs`, message: `must be ≤ horizonMs (${s.horizonMs})` });
    let open = false;
    w.steps.forEach((st, j) => {
      if (st.do === 'acquire' && st.advisoryKey !== undefined && s.mechanism.lock !== 'advisory-xact') {
        errors.push({ path: `workers[${i}].steps[${j}].advisoryKey`, message: 'only applies with mechanism.lock "advisory-xact" (transaction-scoped locks, all released at COMMIT)' });
      }
      // The worker skips a COMMIT when its transaction already ended (a ROLLBACK on the error path,
      // like a catch block would); a plan whose COMMIT no `begin` opened would be a step that does
      // nothing, where PostgreSQL would answer WARNING: there is no transaction in progress (25P01).
      if (st.do === 'begin') open = true;
      else if (st.do === 'commit') {
        if (!open) errors.push({ path: `workers[${i}].steps[${j}]`, message: `"commit" with no transaction open: add a "begin" step before it${j > 0 && w.steps.slice(0, j).some((x) => x.do === 'commit') ? ' (the earlier "commit" ended the last one)' : ''}` });
        open = false;
      }
    });
  });
  if (s.job.kind === 'fencedRow') {
    for (const col of ['id', 'fence']) if (col in s.job.values) errors.push({ path: `job.values.${col}`, message: `is written by the fenced UPDATE itself (${col === 'id' ? 'WHERE id = job.rowId' : 'SET fence = $token'}); remove it` });
    if (s.job.table === 'jobs') errors.push({ path: 'job.table', message: '"jobs" is the durable job records\' table; name the fenced table otherwise' });
  }
  errors.push(...queueErrors(s));
  errors.push(...topologyErrors(s));
  errors.push(...lockServiceErrors(s));
  if (s.mechanism.renewal !== 'none' && s.client.renewMarginMs >= s.lease.renewEveryMs) {
    errors.push({ path: 'client.renewMarginMs', message: `must be < lease.renewEveryMs (${s.lease.renewEveryMs}): the renewal would be due before the period starts` });
  }
  s.faults.forEach((f, i) => {
    const where = `faults[${i}]`;
    const hasTime = f.atMs !== undefined;
    const hasStep = f.step !== undefined;
    if (hasTime === hasStep) errors.push({ path: where, message: 'must give exactly one of atMs or step' });
    if (f.phase !== undefined && !hasStep) errors.push({ path: `${where}.phase`, message: 'only applies with step' });
    if (hasTime && f.atMs! > s.horizonMs) errors.push({ path: `${where}.atMs`, message: `must be ≤ horizonMs (${s.horizonMs}): the fault would fire after the run ends` });
    if (f.worker !== undefined && !ids.has(f.worker)) errors.push({ path: `${where}.worker`, message: `no worker "${f.worker}" in workers` });
    if (hasStep) {
      if (f.worker === undefined) errors.push({ path: `${where}.worker`, message: 'is required with step' });
      else {
        const w = s.workers[ids.get(f.worker) ?? -1];
        if (w && f.step! >= w.steps.length) errors.push({ path: `${where}.step`, message: `must be < ${w.steps.length} (worker ${w.id} has ${w.steps.length} steps)` });
      }
    }
  });
  return errors;
}

/**
 * The connection topology's rules (version 2): process ids unique, a worker's `process` names one
 * of `processes`, and a step's `helper` only where the step sends SQL for this job — a helper
 * borrows a second database connection, so a step that would send nothing (or an HTTP call) has
 * nothing to run on it.
 */
function topologyErrors(s: Scenario): ValidationError[] {
  const errors: ValidationError[] = [];
  const processes = new Map<string, number>();
  s.processes?.forEach((p, i) => {
    if (processes.has(p.id)) errors.push({ path: `processes[${i}].id`, message: `duplicates processes[${processes.get(p.id)}].id "${p.id}"` });
    else processes.set(p.id, i);
  });
  const job = s.job;
  const whyNoSql: Partial<Record<string, string | null>> = {
    effect: job.kind === 'external' ? 'the effect of an "external" job is a call to the destination, not SQL' : null,
    read: job.kind === 'debit' || job.kind === 'reserve' ? null : `a "read" step reads only in a "debit" or "reserve" job (job.kind is "${job.kind}")`,
    check: job.kind === 'insertOnce' || s.mechanism.jobRecord ? null : 'a "check" step sends SQL only for an "insertOnce" job or with mechanism.jobRecord',
  };
  s.workers.forEach((w, i) => {
    if (w.process !== undefined && !processes.has(w.process)) {
      errors.push({ path: `workers[${i}].process`, message: s.processes === undefined ? `names process "${w.process}", but the scenario has no "processes"` : `no process "${w.process}" in processes` });
    }
    w.steps.forEach((st, j) => {
      if (!('helper' in st) || st.helper !== true) return;
      const why = whyNoSql[st.do];
      if (why) errors.push({ path: `workers[${i}].steps[${j}].helper`, message: `a helper borrows a second database connection for this step's SQL, but ${why}` });
    });
  });
  return errors;
}

/** What each queue step needs: a queue of either kind, an SQS-like one, or a table. */
const QUEUE_STEP_NEEDS: Readonly<Record<string, 'any' | 'sqs' | 'table'>> = { receive: 'any', ack: 'any', extendVisibility: 'sqs', markClaimed: 'table' };

/**
 * The queue's rules (version 2): its steps and invariants need a `queue` of the right kind; an
 * SQS-like queue carries one message whose body is an external job's key (so the key names no
 * `{worker}`); a table queue's table is not one the job already uses.
 */
function queueErrors(s: Scenario): ValidationError[] {
  const errors: ValidationError[] = [];
  const q = s.queue;
  s.workers.forEach((w, i) => w.steps.forEach((st, j) => {
    const needs = QUEUE_STEP_NEEDS[st.do];
    if (needs === undefined) return;
    if (q === undefined) errors.push({ path: `workers[${i}].steps[${j}].do`, message: `"${st.do}" takes its job from a queue: add a "queue" block` });
    else if (needs !== 'any' && q.kind !== needs) errors.push({ path: `workers[${i}].steps[${j}].do`, message: `"${st.do}" only applies to a queue of kind "${needs}" (queue.kind is "${q.kind}")` });
  }));
  s.invariants.forEach((inv, i) => {
    if (inv.kind === 'jobCompletesWithin' && q === undefined) errors.push({ path: `invariants[${i}].kind`, message: '"jobCompletesWithin" judges jobs taken from a queue: add a "queue" block' });
    if (inv.kind === 'oneClaimPerJob' && q?.kind !== 'table') errors.push({ path: `invariants[${i}].kind`, message: '"oneClaimPerJob" judges the rows of a table queue: set queue.kind to "table"' });
  });
  if (q?.kind === 'sqs') {
    if (s.job.kind !== 'external') errors.push({ path: 'queue.kind', message: `an "sqs" queue carries one message whose body is the key of an "external" job; job.kind is "${s.job.kind}"` });
    else if (s.job.jobKey.includes('{worker}')) errors.push({ path: 'job.jobKey', message: 'must not contain {worker} with an "sqs" queue: every consumer receives the same message, so the job key is the same for all' });
  }
  if (q?.kind === 'table') {
    const taken = new Set(['jobs', s.job.kind === 'insertOnce' ? s.job.table : s.job.kind === 'debit' ? 'accounts' : s.job.kind === 'reserve' ? 'items' : 'jobs']);
    if (taken.has(q.table)) errors.push({ path: 'queue.table', message: `"${q.table}" is already a table of this scenario (the job's); name the queue's table differently, e.g. "job_queue"` });
  }
  return errors;
}

/** Redis renewals that have no etcd equivalent (an etcd lease is renewed by keep-alive only). */
const REDIS_ONLY_RENEWALS: Readonly<Record<string, string>> = { set: 'a plain SET', 'set-px': 'SET … PX', pexpire: 'a plain PEXPIRE' };

/**
 * Where the lease lives and where its fencing token comes from (version 2): the revision issued
 * with the grant needs the lock service; a lease in etcd takes no token from Redis `INCR` (there is
 * no Redis next to it), is renewed by keep-alive only, has a TTL in whole seconds and a key etcdctl
 * takes unquoted; a Redis failover or a clock jump of the lease store is not something etcd has.
 */
function lockServiceErrors(s: Scenario): ValidationError[] {
  const errors: ValidationError[] = [];
  const m = s.mechanism;
  if (s.lockService === undefined) {
    if (m.fenceSource === 'lock-service-revision') errors.push({ path: 'mechanism.fenceSource', message: '"lock-service-revision" is the revision a lock service issues with the grant: add "lockService": { "kind": "etcd" } (the lease then lives in etcd)' });
    return errors;
  }
  if (s.lease.ttlMs % 1000 !== 0) errors.push({ path: 'lease.ttlMs', message: `must be whole seconds (a multiple of 1000) with lockService "etcd": etcd grants a lease TTL in seconds (${fmtTime(s.lease.ttlMs)} is not)` });
  if (!/^[A-Za-z0-9_:./-]+$/.test(s.lease.key)) errors.push({ path: 'lease.key', message: 'must be letters, digits, _ : . / or - with lockService "etcd" (the key etcdctl is given unquoted)' });
  if (m.lock === 'lease' && m.fencing && (m.fenceSource === undefined || m.fenceSource === 'redis-incr')) {
    errors.push({ path: 'mechanism.fenceSource', message: 'the lease lives in etcd, so there is no Redis INCR counter next to it: take the token from "lock-service-revision" (the revision etcd issues with the grant) or "db-sequence"' });
  }
  const redisRenewal = REDIS_ONLY_RENEWALS[m.renewal];
  if (m.lock === 'lease' && redisRenewal !== undefined) errors.push({ path: 'mechanism.renewal', message: `"${m.renewal}" renews with ${redisRenewal}, a Redis command; an etcd lease is renewed by keep-alive: "compare-and-extend" (a keep-alive of the worker's own lease) or "none"` });
  s.faults.forEach((f, i) => {
    if (f.kind === 'failover') errors.push({ path: `faults[${i}].kind`, message: '"failover" fails over a Redis primary to a lagging replica; the lease lives in etcd, whose quorum keeps every committed write (a leader change is not modelled)' });
    if (f.kind === 'clockJump') errors.push({ path: `faults[${i}].kind`, message: '"clockJump" moves the lease store\'s wall clock; etcd times leases on a monotonic clock, so a wall-clock jump expires nothing there' });
  });
  return errors;
}

/** Formats errors one per line, `path: message`. */
export function formatErrors(errors: readonly ValidationError[]): string {
  return errors.map((e) => `${e.path}: ${e.message}`).join('\n');
}
