/**
 * The interview candidate's prompt (issue 12): a title and a setup derived from the scenario's
 * data alone — who runs which job, what must never happen, the faults of the run — never from
 * its own title or description, which may tell the outcome or name what is missing ("… has no
 * condition on the fence"). A rule, not a list of rewritten presets: every scenario, a user's
 * own included, gets one. The mechanism is not described here: the candidate's mechanism panel
 * shows its switches (without their hints), and choosing is the exercise.
 *
 * `candidateScenario` is the scenario as a candidate's link carries it (`link.ts`, `i=1`) and as
 * the candidate's store holds it: this prompt as title and description, no preset id. Pure.
 */
import { describeFault, fmtList, fmtTime, LIMITS, type Invariant, type Scenario } from '../sim';

/** What a job is about, as a phrase after "workers …". */
function jobPhrase(s: Scenario): string {
  const j = s.job;
  switch (j.kind) {
    case 'insertOnce': return `inserting into ${j.table} (${Object.entries(j.key).map(([k, v]) => `${k} = ${String(v)}`).join(', ')})`;
    case 'debit': return `debiting account ${j.accountId}`;
    case 'reserve': return `reserving item ${j.itemId}`;
    // Only a job with an effect step touches the destination (unsafe-release's job writes nothing).
    case 'external': return s.workers.some((w) => w.steps.some((st) => st.do === 'effect'))
      ? `${s.destination.kind === 'file' ? 'writing' : 'calling'} ${s.destination.target}`
      : `running job ${j.jobKey}`;
    case 'fencedRow': return `writing row ${j.rowId} of ${j.table}`;
  }
}

/** Each invariant as the thing that must never happen, in neutral words (no mechanism named). */
const NEVER: { readonly [K in Invariant['kind']]: (inv: Extract<Invariant, { kind: K }>, s: Scenario) => string } = {
  uniqueBusinessKey: (_i, s) => (s.job.kind === 'insertOnce' ? `two committed rows of ${s.job.table} for one ${Object.keys(s.job.key).join(', ')}` : 'two committed rows for one business key'),
  noOverlappingWrites: (_i, s) => `two writes to ${s.destination.target} accepted while both are in flight`,
  noStaleTokenAccepted: (_i, s) => `${s.job.kind === 'fencedRow' ? `row ${s.job.rowId} of ${s.job.table}` : s.destination.target} accepting a write from an earlier lease holder after it accepted one from a later holder`,
  effectOnce: (_i, s) => `the effect on ${s.destination.target} performed twice for one job`,
  noLostUpdate: (_i, s) => `a committed debit lost${s.job.kind === 'debit' ? ` (the final balance of account ${s.job.accountId} must be ${s.job.initialBalance} minus every committed debit)` : ''}`,
  noOversell: (_i, s) => `more reserved than the stock${s.job.kind === 'reserve' ? ` of item ${s.job.itemId} (${s.job.initialStock})` : ''}`,
  mutualExclusion: () => 'two workers inside the critical section at once',
  singleLeaseOwner: () => 'two live workers that both believe they own the lease',
  boundedWait: (i) => `a worker waiting longer than ${fmtTime(i.maxWaitMs)} for a lock or a connection`,
  noWaitCycle: () => 'workers waiting for each other for ever',
  jobCompletesWithin: (i) => `a delivered job not acknowledged within ${fmtTime(i.withinMs)} of its first delivery`,
  oneClaimPerJob: () => 'a job row claimed by two workers',
};

const never = (inv: Invariant, s: Scenario): string => (NEVER[inv.kind] as (i: Invariant, s: Scenario) => string)(inv, s);

/**
 * A title for `s` from its data alone, telling neither its outcome nor its fix: "2 workers
 * writing …" (the workshop audience's window before the reveal; the candidate's title is this
 * with "Interview: ").
 */
export function neutralTitle(s: Scenario): string {
  const n = s.workers.length;
  return `${n === 1 ? 'One worker' : `${n} workers`} ${jobPhrase(s)}`.slice(0, 120);
}

/** The candidate's title and setup for `s` (see the module's comment). */
export function candidatePrompt(s: Scenario): { readonly title: string; readonly description: string } {
  const ids = s.workers.map((w) => w.id);
  const who = ids.length === 1 ? `Worker ${ids[0]!}` : `Workers ${fmtList(ids)}`;
  const title = `Interview: ${ids.length === 1 ? 'a worker' : `${ids.length} workers`} ${jobPhrase(s)}`;
  const musts = s.invariants.map((inv) => never(inv, s));
  const faults = s.faults.map((f) => describeFault(f, s));
  const description = [
    `${who} run${ids.length === 1 ? 's' : ''} this job, ${jobPhrase(s)}${s.queue ? `, taken from a ${s.queue.kind === 'sqs' ? 'message queue' : 'table queue'}` : ''}; the timeline shows each step.`,
    musts.length > 0 ? `What must never happen: ${musts.join('; ')}.` : '',
    faults.length > 0 ? `In this run: ${faults.join('; ')}.` : '',
    'Choose the mechanism that keeps it so, and check your design.',
  ].filter((t) => t !== '').join(' ');
  return { title: title.slice(0, 120), description: description.slice(0, LIMITS.maxTextLength) };
}

/**
 * The scenario as a candidate sees it: the neutral prompt as its title and description, no preset
 * id and no catalogue lesson. `promptOf` (default `s`) is the scenario the prompt is derived from — the store words its
 * setup and its composed run with the composed one's prompt, so both say the same.
 */
export function candidateScenario(s: Scenario, promptOf: Scenario = s): Scenario {
  // Neither the preset id nor its catalogue lesson ("leases" says where the answer is taught): every
  // interview is filed under the lesson it asks for, start from the invariant.
  const { id: _id, ...rest } = s;
  return { ...rest, lease: neutralFenceCounter(s), lesson: 'invariants', ...candidatePrompt(promptOf) };
}

/**
 * The lease settings with the fencing counter worded by one rule for every scenario whose run
 * never reads it: `fence:<the lease key's name>`, starting at 0 (nothing stored in Redis before the
 * run). A preset whose fix is a fencing token prepares its counter (export-lease-expiry's starts
 * at 32, seeded in Redis, so tokens look real) while one whose fix is not leaves it at 0: in the
 * candidate's file, link, editor and transcript that told which. Kept as it is when the starting
 * design takes tokens (the trace shows them: `INCR fence:export → 33`) or the lease lives in etcd
 * (`fenceStart` is then the store's revision, which every etcd reply carries).
 */
export function neutralFenceCounter(s: Scenario): Scenario['lease'] {
  if (s.mechanism.fencing || s.lockService !== undefined) return s.lease;
  return { ...s.lease, fenceKey: `fence:${s.lease.key.replace(/^lease:/, '')}`.slice(0, 100), fenceStart: 0 };
}
