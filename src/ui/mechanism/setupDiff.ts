/**
 * What differs between two scenarios' setups, in words, each difference with the edit that makes
 * it — one source for the compare view ("what differs"), the mechanism panel ("what the fix
 * changes") and the interview's model answer, so that none of them can name only the switches
 * when a fix also changes the job's steps (serializable-retry moves the charge after COMMIT;
 * queue-redelivery adds ChangeMessageVisibility; skip-locked-claim claims and marks in one
 * transaction) or a setting (a visibility timeout, an isolation level).
 *
 * `setupChanges(a, b)` lists every difference, in this order: the mechanism switches
 * (`src/sim/controls/switches.ts`), each worker's steps (a step diff: what moves, what is added,
 * dropped or becomes something else), the workers' other fields, every other setting grouped by
 * section (lease, database, queue, client, destination, job, invariants, horizon, seed), and the
 * faults once those placed at a step have followed their step (`carryFaults`). The title,
 * description, preset id and catalogue group are not part of a setup. Applying every change's
 * `apply` to `a` gives `b` (`applyChanges`; setupDiff.test.ts checks it over every preset), so no
 * difference can go unnamed.
 */
import { fmtTime, SWITCHES, switchValueText, type Fault, type Scenario, type Step } from '../../sim';

/** One difference between two setups. */
export interface SetupChange {
  /** What kind of field differs. */
  readonly kind: 'switch' | 'steps' | 'workers' | 'setting' | 'faults';
  /** The difference from the first scenario to the second, in words ("A, B: call POST /v1/charges (500 ms) moves after COMMIT"). */
  readonly text: string;
  /** The first scenario with this difference made as in the second (other fields untouched). */
  apply(s: Scenario): Scenario;
}

/** Fields that name or file a scenario but do not change what it runs. */
const METADATA = new Set(['id', 'title', 'description', 'lesson']);

/** A step in a reader's words, for this scenario (its queue, destination and lock): "ReceiveMessage", "COMMIT", "call POST /v1/charges (500 ms)". */
export function stepInWords(s: Scenario, step: Step): string {
  const sqs = s.queue?.kind === 'sqs';
  switch (step.do) {
    case 'connect': return 'borrow a connection';
    case 'disconnect': return 'return the connection';
    case 'begin': return step.isolation ? `BEGIN ISOLATION LEVEL ${step.isolation.toUpperCase()}` : 'BEGIN';
    case 'commit': return 'COMMIT';
    case 'acquire': return step.advisoryKey !== undefined ? `acquire advisory lock ${step.advisoryKey}` : 'acquire the lock';
    case 'release': return 'release the lock';
    case 'check': return s.job.kind === 'insertOnce' ? 'look for the row' : 'check the job record';
    case 'read': return 'read the row';
    case 'work': return `work ${fmtTime(step.ms)}`;
    case 'effect': return s.job.kind === 'external' ? `call ${s.destination.target} (${fmtTime(step.ms)})` : `the write (${fmtTime(step.ms)})`;
    case 'enqueue': return 'write the job record (pending)';
    case 'record': return 'record the job as done';
    case 'receive': return sqs ? 'ReceiveMessage' : 'claim the job row';
    case 'markClaimed': return 'mark the job row claimed';
    case 'extendVisibility': return 'ChangeMessageVisibility (extend the visibility while working)';
    case 'ack': return sqs ? 'DeleteMessage' : 'mark the job row done';
  }
}

const stepSig = (st: Step) => JSON.stringify(st);

/** Longest common subsequence of two lists of keys: the matched index pairs, in order. */
function lcsPairs(a: readonly string[], b: readonly string[]): [number, number][] {
  const n = a.length;
  const m = b.length;
  const w = m + 1;
  const t = new Uint16Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) t[i * w + j] = a[i] === b[j] ? t[(i + 1) * w + j + 1]! + 1 : Math.max(t[(i + 1) * w + j]!, t[i * w + j + 1]!);
  const out: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) { out.push([i, j]); i++; j++; } else if (t[(i + 1) * w + j]! >= t[i * w + j + 1]!) i++; else j++;
  }
  return out;
}

/**
 * The step diff of one worker, in words (null when the steps are equal): steps that keep their
 * place are matched (longest common subsequence); a step dropped in one place and added in
 * another "moves"; in each remaining gap, dropped steps "become" the added ones, or are "added
 * after …" / "dropped".
 */
export function stepDiffInWords(s: Scenario, a: readonly Step[], b: readonly Step[]): string | null {
  const sa = a.map(stepSig);
  const sb = b.map(stepSig);
  if (sa.join('\n') === sb.join('\n')) return null;
  const pairs = lcsPairs(sa, sb);
  const matchedA = new Set(pairs.map(([i]) => i));
  const matchedB = new Set(pairs.map(([, j]) => j));
  const removed = sa.map((_, i) => i).filter((i) => !matchedA.has(i));
  const added = sb.map((_, j) => j).filter((j) => !matchedB.has(j));
  const words = (st: Step) => stepInWords(s, st);
  const after = (j: number) => (j > 0 ? `after ${words(b[j - 1]!)}` : 'at the start');
  const parts: string[] = [];
  // Moves: a dropped step equal to an added one.
  const movedA = new Set<number>();
  const movedB = new Set<number>();
  for (const j of added) {
    const i = removed.find((x) => !movedA.has(x) && sa[x] === sb[j]);
    if (i === undefined) continue;
    movedA.add(i);
    movedB.add(j);
    parts.push(`${words(b[j]!)} moves ${after(j)}`);
  }
  // Gaps between matched steps: what was dropped there and what was added there.
  const bounds: [number, number][] = [[-1, -1], ...pairs, [sa.length, sb.length]];
  for (let k = 0; k + 1 < bounds.length; k++) {
    const [i0, j0] = bounds[k]!;
    const [i1, j1] = bounds[k + 1]!;
    const gone = removed.filter((i) => i > i0 && i < i1 && !movedA.has(i));
    const come = added.filter((j) => j > j0 && j < j1 && !movedB.has(j));
    const seq = (xs: number[], steps: readonly Step[]) => xs.map((x) => words(steps[x]!)).join(' → ');
    if (gone.length > 0 && come.length > 0) parts.push(`${seq(gone, a)} becomes ${seq(come, b)}`);
    else if (come.length > 0) parts.push(`adds ${seq(come, b)} ${after(come[0]!)}`);
    else if (gone.length > 0) parts.push(`drops ${seq(gone, a)}${i0 >= 0 ? ` (after ${words(a[i0]!)})` : ''}`);
  }
  return parts.join('; ');
}

/**
 * The faults of `from` placed on `to`'s steps: a fault placed at a worker's step follows that
 * step (matched by the steps' kinds, longest common subsequence) — the compare view runs the same
 * faults against a variant whose steps differ (session-lock-pool's job error before `work` is step 2
 * without the fix and step 3 with it). A fault whose step has no match keeps its index; faults
 * placed at a time are unchanged.
 */
export function carryFaults(from: Scenario, to: Scenario): Fault[] {
  return from.faults.map((f) => {
    if (f.step === undefined || f.worker === undefined) return f;
    const wa = from.workers.find((w) => w.id === f.worker);
    const wb = to.workers.find((w) => w.id === f.worker);
    if (!wa || !wb) return f;
    const pair = lcsPairs(wa.steps.map((x) => x.do), wb.steps.map((x) => x.do)).find(([i]) => i === f.step);
    return pair && pair[1] !== f.step ? { ...f, step: pair[1] } : f;
  });
}

/** Words for a setting's label: known fields by name, the rest as their field name. */
const LABELS: Readonly<Record<string, string>> = {
  'lease.key': 'key', 'lease.fenceKey': 'fencing key', 'lease.fenceStart': 'fencing tokens start at', 'lease.ttlMs': 'TTL', 'lease.retryEveryMs': 'retry every',
  'lease.renewEveryMs': 'renew every', 'lease.replicationLagMs': 'replica lag',
  'database.poolSize': 'pool size', 'database.deadlockTimeoutMs': 'deadlock_timeout', 'database.lockTimeoutMs': 'lock_timeout', 'database.statementTimeoutMs': 'statement_timeout',
  'database.idleInTransactionSessionTimeoutMs': 'idle_in_transaction_session_timeout', 'database.isolation': 'isolation level', 'database.serializationRetries': 'retries on 40001',
  'database.pooler': 'PgBouncer',
  'queue.visibilityTimeoutMs': 'visibility timeout', 'queue.pollEveryMs': 'poll every', 'queue.maxEmptyReceives': 'empty receives before stopping',
  'queue.stalledCheckEveryMs': 'stalled-job check every', 'queue.retryBackoffMs': 'retry backoff',
  'client.onBusy': 'when the lock is busy', 'client.retries': 'retries', 'client.checkRelease': 'checks the release', 'client.renewFrom': 'renewal timer from', 'client.renewMarginMs': 'renewal margin',
  'destination.target': 'target', 'destination.checksFencing': 'checks fencing tokens', 'destination.honoursIdempotencyKeys': 'honours idempotency keys',
};
const SECTIONS: Readonly<Record<string, string>> = {
  lease: 'Lease', database: 'Database', queue: 'Queue', client: 'Lock client', destination: 'Destination', job: 'Job', mechanism: 'Mechanism',
  invariants: 'Invariants', horizonMs: 'Run length', seed: 'Seed',
};

function valueInWords(key: string, v: unknown): string {
  if (v === undefined || v === null) return 'not set';
  if (typeof v === 'boolean') return v ? 'on' : 'off';
  if (typeof v === 'number' && /Ms$/.test(key)) return fmtTime(v);
  if (typeof v === 'string' || typeof v === 'number') return String(v);
  return JSON.stringify(v);
}

/** The leaves (dotted paths) where two JSON values differ; arrays and a present/absent object count as one leaf. */
function leafDiffs(a: unknown, b: unknown, path: string[], out: string[][]): void {
  if (JSON.stringify(a) === JSON.stringify(b)) return;
  const obj = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === 'object' && !Array.isArray(x);
  if (obj(a) && obj(b)) {
    for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) leafDiffs(a[k], b[k], [...path, k], out);
    return;
  }
  out.push(path);
}

function getPath(v: unknown, path: readonly string[]): unknown {
  return path.reduce<unknown>((x, k) => (x !== null && typeof x === 'object' ? (x as Record<string, unknown>)[k] : undefined), v);
}

/** `v` with `path` set to `value` (a key deleted when `value` is undefined); copies along the path. */
function setPath<T>(v: T, path: readonly string[], value: unknown): T {
  const [k, ...rest] = path;
  if (k === undefined) return value as T;
  const base = (v !== null && typeof v === 'object' ? v : {}) as Record<string, unknown>;
  const next = rest.length === 0 ? value : setPath(base[k], rest, value);
  const copy: Record<string, unknown> = { ...base };
  if (next === undefined) delete copy[k];
  else copy[k] = next;
  return copy as T;
}

/** The switches whose values differ, as changes (each sets the switch as in `b`). */
function switchChanges(a: Scenario, b: Scenario): SetupChange[] {
  return SWITCHES.filter((d) => d.get(a) !== d.get(b)).map((d) => {
    const want = d.get(b);
    const was = switchValueText(a, d.id).slice(d.label.length + 2);
    return { kind: 'switch' as const, text: `${switchValueText(b, d.id)} (was ${was})`, apply: (s: Scenario) => d.set(s, want) };
  });
}

/** The workers' differences: per worker its steps (grouped when several workers change alike) and other fields; a different set of workers as one change. */
function workerChanges(a: Scenario, b: Scenario): SetupChange[] {
  if (JSON.stringify(a.workers) === JSON.stringify(b.workers)) return [];
  const ids = (s: Scenario) => s.workers.map((w) => w.id).join(', ');
  if (ids(a) !== ids(b)) {
    return [{ kind: 'workers', text: `workers ${ids(b)} (were ${ids(a)})`, apply: (s) => ({ ...s, workers: b.workers }) }];
  }
  const out: SetupChange[] = [];
  const byText = new Map<string, string[]>();
  b.workers.forEach((wb, i) => {
    const wa = a.workers[i]!;
    const d = stepDiffInWords(b, wa.steps, wb.steps);
    if (d !== null) byText.set(d, [...(byText.get(d) ?? []), wb.id]);
  });
  for (const [text, workers] of byText) {
    const steps = new Map(b.workers.filter((w) => workers.includes(w.id)).map((w) => [w.id, w.steps] as const));
    out.push({ kind: 'steps', text: `${workers.join(', ')}: ${text}`, apply: (s) => ({ ...s, workers: s.workers.map((w) => (steps.has(w.id) ? { ...w, steps: steps.get(w.id)! } : w)) }) });
  }
  b.workers.forEach((wb, i) => {
    const wa = a.workers[i]!;
    for (const k of [...new Set([...Object.keys(wa), ...Object.keys(wb)])].filter((x) => x !== 'steps' && x !== 'id').sort()) {
      const va = (wa as Record<string, unknown>)[k];
      const vb = (wb as Record<string, unknown>)[k];
      if (JSON.stringify(va) === JSON.stringify(vb)) continue;
      const label = k === 'startMs' ? 'starts at' : k;
      out.push({ kind: 'workers', text: `${wb.id} ${label} ${valueInWords(k, vb)} (was ${valueInWords(k, va)})`, apply: (s) => ({ ...s, workers: s.workers.map((w) => (w.id === wb.id ? setPath(w, [k], vb) : w)) }) });
    }
  });
  return out;
}

/**
 * Every difference between the setups of `a` and `b` (see the module comment), each worded from
 * `a` to `b`; empty when they run the same setup (faults placed at a step compared after they
 * follow their step). Pure.
 */
export function setupChanges(a: Scenario, b: Scenario): SetupChange[] {
  const changes: SetupChange[] = [...switchChanges(a, b)];
  // What the switches leave different, section by section.
  const afterSwitches = changes.reduce((s, c) => c.apply(s), a);
  changes.push(...workerChanges(afterSwitches, b));
  const leaves: string[][] = [];
  const strip = (s: Scenario) => Object.fromEntries(Object.entries(s).filter(([k]) => !METADATA.has(k) && k !== 'workers' && k !== 'faults'));
  leafDiffs(strip(afterSwitches), strip(b), [], leaves);
  const bySection = new Map<string, string[][]>();
  for (const p of leaves) bySection.set(p[0]!, [...(bySection.get(p[0]!) ?? []), p]);
  for (const [section, paths] of bySection) {
    const words = paths.map((p) => {
      const key = p.join('.');
      const label = p.length === 1 ? '' : `${LABELS[key] ?? p.slice(1).join('.')} `;
      return `${label}${valueInWords(key, getPath(b, p))} (was ${valueInWords(key, getPath(afterSwitches, p))})`;
    });
    changes.push({
      kind: 'setting',
      text: `${SECTIONS[section] ?? section}: ${words.join(', ')}`,
      apply: (s) => paths.reduce((x, p) => setPath(x, p, getPath(b, p)), s),
    });
  }
  const carried = carryFaults(a, b);
  if (JSON.stringify(carried) !== JSON.stringify(b.faults)) {
    const n = b.faults.length;
    changes.push({ kind: 'faults', text: `faults: ${n === 0 ? 'none' : `${n} fault${n === 1 ? '' : 's'} of its own`} (was ${a.faults.length === 0 ? 'none' : a.faults.length})`, apply: (s) => ({ ...s, faults: b.faults }) });
  }
  // The job's steps first (what a fix does to the job is what a reader looks for), then the switches, settings, faults.
  return [...changes.filter((c) => c.kind === 'steps' || c.kind === 'workers'), ...changes.filter((c) => c.kind !== 'steps' && c.kind !== 'workers')];
}

const APPLY_ORDER: readonly SetupChange['kind'][] = ['switch', 'steps', 'workers', 'setting'];

/**
 * `a` with every change applied; the faults placed at a step follow their step (`carryFaults`)
 * unless a `faults` change sets them. `applyChanges(a, setupChanges(a, b))` runs what `b` runs.
 */
export function applyChanges(a: Scenario, changes: readonly SetupChange[]): Scenario {
  // Switches first: the other changes were measured after them (see setupChanges).
  const applied = APPLY_ORDER.flatMap((k) => changes.filter((c) => c.kind === k)).reduce((s, c) => c.apply(s), a);
  const withFaults = { ...applied, faults: carryFaults(a, applied) };
  return changes.filter((c) => c.kind === 'faults').reduce((s, c) => c.apply(s), withFaults);
}
