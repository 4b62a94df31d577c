/**
 * "Checked against PostgreSQL 15.x / Redis 7.x": what the last fidelity run (`npm run
 * test:fidelity`, which replays every preset's transcript against the real servers) says about a
 * preset, for this build. The run writes `src/generated/fidelity-report.json` (`fidelity/report.ts`)
 * keyed by a hash of the model's sources; `vite.config.ts` hands the app that report and the hash
 * of the sources it was built from (`__LOCKSCOPE_FIDELITY__`). A missing report, or one written for
 * other sources, reads "not checked in this build" — never a stale claim.
 *
 * A claim names only the servers the run touches (`touchesOf`: PostgreSQL, PgBouncer, Redis, from
 * the trace's calls) and that the report replayed, and counts differences only over the steps the
 * replay ran (the report's `coverage`, version 2): `0 differences in steps 1–3; steps 4–7 not
 * replayed (a Redis failover)` (`overSteps`) — a report without it backs no claim; a run that touches none — only the SQS queue's
 * model and the destination — says it was not replayed against a server, and what stays a model.
 */
import { findPreset, fmtList, runScenario, stepRangesText, type Scenario, type StepRange, type TraceEvent } from '../../sim';

/** One variant's replay: the steps compared and the replies that differed, per server. */
export interface FidelityReplay {
  readonly steps: number;
  readonly differences: number;
}

/**
 * Which of a transcript's numbered steps (1 … `total`) the replay ran, and which it did not and
 * why (`why`: "a Redis failover", "a Redis TTL runs out (real time the replay does not wait)", "the
 * replay stopped at its first difference"; `fidelity/presetReplay.ts`, `coverageOf`).
 */
export interface FidelityCoverage {
  readonly total: number;
  readonly replayed: readonly { readonly from: number; readonly to: number }[];
  readonly notReplayed: readonly { readonly from: number; readonly to: number; readonly why: string }[];
}

/** One preset variant in the report. `sql`/`redis` are absent when its transcript has no such step. */
export interface FidelityVariantResult {
  readonly sql?: FidelityReplay;
  readonly redis?: FidelityReplay;
  /** The steps replayed and not (version 2). */
  readonly coverage: FidelityCoverage;
  /** The SQL ran through PgBouncer (the hook for the PgBouncer replay; false until it exists). */
  readonly viaPgBouncer?: boolean;
}

/** The report file's shape (version 2: each variant says which steps were replayed; a version-1 report is read as none). */
export interface FidelityReport {
  readonly version: 2;
  /** `simSourceHash()` of the sources the run checked. */
  readonly simSourceHash: string;
  /** UTC date of the run, `YYYY-MM-DD`. */
  readonly date: string;
  /** Server versions as they reported them (`SHOW server_version`, `INFO server`); pgbouncer when a run used it. */
  readonly servers: { readonly postgresql: string; readonly redis: string; readonly pgbouncer?: string };
  /** Preset id → variant → result. */
  readonly presets: Readonly<Record<string, { readonly withoutFix?: FidelityVariantResult; readonly withFix?: FidelityVariantResult }>>;
}

/** What the build was given: the report (or null) and the hash of the sources it was built from. */
export interface FidelityBuildInfo {
  readonly report: FidelityReport | null;
  readonly buildSimHash: string;
}

/** A preset's (or the whole build's) status, with the sentence to show. */
export type FidelityStatus =
  /** `short`: the catalogue card's line, e.g. `Checked against PostgreSQL 15.20: 0 differences`. */
  | { readonly kind: 'checked'; readonly text: string; readonly short: string; readonly differences: number }
  | { readonly kind: 'unchecked'; readonly text: string; readonly short: string }
  /** The run touches no server a transcript replays on (only models: the SQS queue, the destination). */
  | { readonly kind: 'model'; readonly text: string; readonly short: string };

/** The sentence for a build without a current report. */
export const NOT_CHECKED = 'Not checked in this build: no fidelity report for these sources (run npm run test:fidelity).';

/** What a run touches: the servers its transcript replays on, and the parts that stay Lockscope's models. */
export interface RunTouches {
  /** Any SQL call (a `psql` session of the transcript). */
  readonly postgresql: boolean;
  /** The SQL goes through the scenario's PgBouncer (`database.pooler`). */
  readonly pgbouncer: boolean;
  /** Any Redis command (a `redis-cli` session). */
  readonly redis: boolean;
  /** The SQS-like queue's model (ReceiveMessage, DeleteMessage, ChangeMessageVisibility): no server. */
  readonly queue: string | null;
  /** The destination's model (an external API or file store): no server. */
  readonly destination: string | null;
}

/** What a run touches, from its trace's calls (`call.resource`), never from the scenario's wording. */
export function touchesOf(run: { readonly scenario: Scenario; readonly events: readonly TraceEvent[] }): RunTouches {
  const used = new Set(run.events.flatMap((e) => (e.call ? [e.call.resource] : [])));
  const s = run.scenario;
  return {
    postgresql: used.has('db'),
    pgbouncer: used.has('db') && s.database.pooler !== undefined,
    redis: used.has('redis'),
    queue: used.has('queue') ? (s.queue?.kind === 'sqs' ? `the SQS queue ${s.queue.name}` : 'the queue') : null,
    destination: used.has('destination') ? `the ${s.destination.kind === 'api' ? 'external API' : 'file store'} ${s.destination.target}` : null,
  };
}

/** A preset variant in the report's terms. */
export type ReportVariant = 'withoutFix' | 'withFix';
/** What a preset variant's run touches (undefined: no such preset). */
export type TouchesOf = (presetId: string, variant: ReportVariant) => RunTouches | undefined;

const touchCache = new Map<string, RunTouches>();
/** The app's `TouchesOf`: the preset variant's run (memoised per preset variant). */
export const presetTouches: TouchesOf = (presetId, variant) => {
  const key = `${presetId}|${variant}`;
  const hit = touchCache.get(key);
  if (hit) return hit;
  const p = findPreset(presetId);
  if (!p) return undefined;
  const t = touchesOf(runScenario(p[variant], { text: false }));
  touchCache.set(key, t);
  return t;
};

/** `PostgreSQL 15.14 / Redis 7.0.15` (+ ` / PgBouncer 1.22` when `pgbouncer`). */
export function serversText(servers: FidelityReport['servers'], pgbouncer: boolean): string {
  return [`PostgreSQL ${servers.postgresql}`, `Redis ${servers.redis}`, ...(pgbouncer && servers.pgbouncer ? [`PgBouncer ${servers.pgbouncer}`] : [])].join(' / ');
}

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

const VARIANT_WORDS: Readonly<Record<ReportVariant, string>> = { withoutFix: 'without the fix', withFix: 'with the fix' };
const touchesServer = (t: RunTouches) => t.postgresql || t.redis;
/** The parts of runs that stay models, in words ("the SQS queue charges and the external API POST /v1/charges"). */
function modelsText(ts: readonly RunTouches[]): string {
  const parts = [...new Set(ts.flatMap((t) => [t.queue, t.destination].filter((x): x is string => x !== null)))];
  return fmtList(parts);
}

/**
 * The status of one preset (both variants, or `variant` alone), or of the whole build when
 * `presetId` is absent. "checked" only when the report exists, was written for `buildSimHash`, and
 * replayed every server the runs touch; the text names those servers only (PgBouncer only when the
 * replay went through it), the steps and the differences, and what stayed a model. A run that
 * touches no server is "model": not replayed against a server, and why. Never throws.
 */
export function fidelityStatus(info: FidelityBuildInfo, presetId?: string, variant?: ReportVariant, touches: TouchesOf = presetTouches): FidelityStatus {
  const r = info.report;
  const variants: ReportVariant[] = variant ? [variant] : ['withoutFix', 'withFix'];
  const rows = presetId === undefined ? [] : variants.map((v) => ({ v, t: touches(presetId, v), res: r?.presets[presetId]?.[v] }));
  const known = rows.filter((x): x is typeof x & { t: RunTouches } => x.t !== undefined);
  const onServers = known.filter((x) => touchesServer(x.t));
  const these = variants.length === 1 ? 'this run touches' : 'these runs touch';
  // A run that touches no server has nothing a report could check, whatever the report.
  if (presetId !== undefined && known.length > 0 && onServers.length === 0) {
    const models = modelsText(known.map((x) => x.t));
    const short = `Not replayed against a server: ${these} no PostgreSQL or Redis`;
    const many = models.includes(' and ');
    return { kind: 'model', short, text: `${short}${models ? `; ${models} ${many ? 'are' : 'is'} Lockscope's model${many ? 's, not servers' : ', not a server'}` : ''}. Nothing in ${variants.length === 1 ? 'it' : 'them'} was checked against a real server.` };
  }
  if (!r || r.simSourceHash !== info.buildSimHash) return { kind: 'unchecked', text: NOT_CHECKED, short: 'Not checked in this build' };
  if (presetId === undefined) return buildStatus(r, touches);
  // Every server a run touches must have been replayed, and the report must say which steps were, else no claim.
  const replayed = onServers.every((x) => x.res && (!x.t.postgresql || x.res.sql) && (!x.t.redis || x.res.redis) && validCoverage(x.res.coverage));
  if (onServers.length === 0 || !replayed) return { kind: 'unchecked', text: 'Not checked in this build: the last fidelity run did not replay this scenario.', short: 'Not checked in this build' };
  const pg = onServers.some((x) => x.t.postgresql);
  const redis = onServers.some((x) => x.t.redis);
  const viaPgb = onServers.some((x) => x.t.pgbouncer && x.res?.viaPgBouncer === true);
  const pgbNotReplayed = onServers.some((x) => x.t.pgbouncer) && !viaPgb;
  const servers = [...(pg ? [`PostgreSQL ${r.servers.postgresql}`] : []), ...(redis ? [`Redis ${r.servers.redis}`] : []), ...(viaPgb && r.servers.pgbouncer ? [`PgBouncer ${r.servers.pgbouncer}`] : [])].join(' / ');
  const replays = onServers.flatMap((x) => [x.res?.sql, x.res?.redis]).filter((x): x is FidelityReplay => x !== undefined);
  const differences = replays.reduce((n, x) => n + x.differences, 0);
  const only = variants.length === 2 && onServers.length === 1 ? ` (${VARIANT_WORDS[onServers[0]!.v]}; the run ${VARIANT_WORDS[variants.find((v) => v !== onServers[0]!.v)!]} touches no server)` : '';
  const what = variants.length === 1 ? `this run's transcript` : onServers.length === 2 ? 'the transcripts of both variants' : `the transcript ${VARIANT_WORDS[onServers[0]!.v]}`;
  // What was compared, per variant: the differences over the steps replayed, and the steps not replayed with why.
  const covered = onServers.map((x) => ({ v: x.v, c: x.res!.coverage, d: (x.res!.sql?.differences ?? 0) + (x.res!.redis?.differences ?? 0) }));
  const diffWords = (d: number) => (d === 0 ? '0 differences' : count(d, 'difference', 'differences'));
  const perVariant = covered.map(({ v, c, d }) => `${covered.length === 2 ? `${VARIANT_WORDS[v]}, ` : ''}${overSteps(diffWords(d), c)}`);
  const replayedSteps = covered.reduce((n, x) => n + rangeCount(x.c.replayed), 0);
  const missedSteps = covered.reduce((n, x) => n + rangeCount(x.c.notReplayed), 0);
  const whys = [...new Set(covered.flatMap((x) => x.c.notReplayed.map((r) => r.why)))];
  const shortOver = covered.length === 1
    ? perVariant[0]!
    : missedSteps === 0
      ? `${diffWords(differences)} in all ${count(replayedSteps, 'step', 'steps')} of both variants`
      : `${diffWords(differences)} in the ${count(replayedSteps, 'step', 'steps')} replayed; ${missedSteps} not replayed (${whys.join('; ')})`;
  const verdict = `${perVariant.join('; ')}${differences === 0 ? '' : ' — the model and the servers disagree here'}`;
  const models = modelsText(known.map((x) => x.t));
  const notes = [
    ...(pgbNotReplayed ? ['PgBouncer is modelled but not in the replay (its statements ran on PostgreSQL directly)'] : []),
    ...(models ? [`not replayed: ${models} (Lockscope's model${models.includes(' and ') ? 's' : ''}, no server)`] : []),
  ];
  return {
    kind: 'checked', differences,
    text: `Checked against ${servers}${only} on ${r.date}: ${what} replayed, ${verdict}.${notes.length > 0 ? ` ${notes.map((n) => `${n[0]!.toUpperCase()}${n.slice(1)}`).join('. ')}.` : ''}`,
    short: `Checked against ${servers}${only}: ${shortOver}`,
  };
}

/** How many steps the ranges hold. */
function rangeCount(ranges: readonly StepRange[]): number {
  return ranges.reduce((n, r) => n + r.to - r.from + 1, 0);
}

/** A report's coverage is usable: its ranges are whole numbers within 1 … total, and together they hold every step once. */
function validCoverage(c: FidelityCoverage | undefined): c is FidelityCoverage {
  if (c === undefined || !Number.isInteger(c.total) || c.total < 0) return false;
  const seen = new Set<number>();
  for (const r of [...c.replayed, ...c.notReplayed]) {
    if (!Number.isInteger(r.from) || !Number.isInteger(r.to) || r.from < 1 || r.to > c.total || r.from > r.to) return false;
    for (let n = r.from; n <= r.to; n++) {
      if (seen.has(n)) return false;
      seen.add(n);
    }
  }
  return seen.size === c.total;
}

/**
 * `differences` said over exactly the steps replayed, and the steps not replayed with why:
 * `0 differences in all 7 steps`, or `0 differences in steps 1–3; steps 4–7 not replayed (a Redis
 * failover)` — never a count of differences over steps no server saw.
 */
export function overSteps(differences: string, c: FidelityCoverage): string {
  if (c.notReplayed.length === 0) return `${differences} in all ${count(c.total, 'step', 'steps')}`;
  const byWhy = new Map<string, StepRange[]>();
  for (const r of c.notReplayed) byWhy.set(r.why, [...(byWhy.get(r.why) ?? []), r]);
  const missed = [...byWhy].map(([why, rs]) => `${stepRangesText(rs)} not replayed (${why})`).join('; ');
  return c.replayed.length === 0 ? `nothing replayed: ${missed}` : `${differences} in ${stepRangesText(c.replayed)}; ${missed}`;
}

/** The whole build's status: the servers the replays used, and the preset variants no server saw. */
function buildStatus(r: FidelityReport, touches: TouchesOf): FidelityStatus {
  const rows = Object.entries(r.presets).flatMap(([id, p]) => (['withoutFix', 'withFix'] as const).flatMap((v) => (p?.[v] ? [{ id, v, res: p[v]!, t: touches(id, v) }] : [])));
  if (rows.length === 0) return { kind: 'unchecked', text: 'Not checked in this build: the last fidelity run did not replay this scenario.', short: 'Not checked in this build' };
  if (!rows.every((x) => validCoverage(x.res.coverage))) return { kind: 'unchecked', text: NOT_CHECKED, short: 'Not checked in this build' };
  const replays = rows.flatMap((x) => [x.res.sql, x.res.redis]).filter((x): x is FidelityReplay => x !== undefined);
  const steps = rows.reduce((n, x) => n + rangeCount(x.res.coverage.replayed), 0);
  const missed = rows.filter((x) => x.res.coverage.notReplayed.length > 0);
  const missedSteps = missed.reduce((n, x) => n + rangeCount(x.res.coverage.notReplayed), 0);
  const differences = replays.reduce((n, x) => n + x.differences, 0);
  const pg = rows.some((x) => x.res.sql);
  const redis = rows.some((x) => x.res.redis);
  const viaPgb = rows.some((x) => x.res.viaPgBouncer === true);
  const servers = [...(pg ? [`PostgreSQL ${r.servers.postgresql}`] : []), ...(redis ? [`Redis ${r.servers.redis}`] : []), ...(viaPgb && r.servers.pgbouncer ? [`PgBouncer ${r.servers.pgbouncer}`] : [])].join(' / ');
  const replayedPresets = new Set(rows.filter((x) => x.res.sql || x.res.redis).map((x) => x.id));
  // Preset variants whose run touches no server: said, with what stays a model.
  const none = rows.filter((x) => !x.res.sql && !x.res.redis);
  const byPreset = new Map<string, typeof none>();
  for (const x of none) byPreset.set(x.id, [...(byPreset.get(x.id) ?? []), x]);
  const noneWords = [...byPreset].map(([id, xs]) => {
    const models = modelsText(xs.flatMap((x) => (x.t ? [x.t] : [])));
    return `${id} ${xs.length === 2 ? 'in both variants' : VARIANT_WORDS[xs[0]!.v]}${models ? ` (only ${models}: ${models.includes(' and ') ? 'models' : 'a model'})` : ''}`;
  });
  const verdict = differences === 0 ? '0 differences' : `${count(differences, 'difference', 'differences')} — the model and the servers disagree here`;
  const serversPart = servers || 'no server';
  return {
    kind: 'checked', differences,
    text: `Checked against ${serversPart} on ${r.date}: the transcripts of ${count(replayedPresets.size, 'preset', 'presets')} replayed, ${verdict} in the ${count(steps, 'step', 'steps')} replayed.${missedSteps > 0 ? ` Not replayed: ${count(missedSteps, 'step', 'steps')} of ${count(missed.length, 'preset variant', 'preset variants')} (${[...new Set(missed.flatMap((x) => x.res.coverage.notReplayed.map((m) => m.why)))].join('; ')}); each preset's own line, on its card and in its Run it yourself, names the steps.` : ''}${noneWords.length > 0 ? ` Not replayed against a server (they touch no PostgreSQL or Redis): ${noneWords.join('; ')}.` : ''} The SQS queue and the destinations are Lockscope's models, never replayed.`,
    short: `Checked against ${serversPart}: ${differences === 0 ? '0 differences' : count(differences, 'difference', 'differences')} in the ${count(steps, 'step', 'steps')} replayed${missedSteps > 0 ? `; ${missedSteps} not replayed` : ''}`,
  };
}

declare const __LOCKSCOPE_FIDELITY__: FidelityBuildInfo | undefined;

/** What this build was given (vite.config.ts defines it; absent → no report). */
export const BUILD_FIDELITY: FidelityBuildInfo = typeof __LOCKSCOPE_FIDELITY__ !== 'undefined' ? __LOCKSCOPE_FIDELITY__ : { report: null, buildSimHash: '' };
