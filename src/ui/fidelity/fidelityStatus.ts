/**
 * "Checked against PostgreSQL 15.x / Redis 7.x": what the last fidelity run (`npm run
 * test:fidelity`, which replays every preset's transcript against the real servers) says about a
 * preset, for this build. The run writes `src/generated/fidelity-report.json` (`fidelity/report.ts`)
 * keyed by a hash of the model's sources; `vite.config.ts` hands the app that report and the hash
 * of the sources it was built from (`__LOCKSCOPE_FIDELITY__`). A missing report, or one written for
 * other sources, reads "not checked in this build" — never a stale claim.
 */

/** One variant's replay: the steps compared and the replies that differed, per server. */
export interface FidelityReplay {
  readonly steps: number;
  readonly differences: number;
}

/** One preset variant in the report. `sql`/`redis` are absent when its transcript has no such step. */
export interface FidelityVariantResult {
  readonly sql?: FidelityReplay;
  readonly redis?: FidelityReplay;
  /** The SQL ran through PgBouncer (the hook for the PgBouncer replay; false until it exists). */
  readonly viaPgBouncer?: boolean;
}

/** The report file's shape (version 1). */
export interface FidelityReport {
  readonly version: 1;
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
  /** `short`: the catalogue card's line, e.g. `Checked against PostgreSQL 15.20 / Redis 7.0.15: 0 differences`. */
  | { readonly kind: 'checked'; readonly text: string; readonly short: string; readonly differences: number }
  | { readonly kind: 'unchecked'; readonly text: string; readonly short: string };

/** The sentence for a build without a current report. */
export const NOT_CHECKED = 'Not checked in this build: no fidelity report for these sources (run npm run test:fidelity).';

/** `PostgreSQL 15.14 / Redis 7.0.15` (+ ` / PgBouncer 1.22` when `pgbouncer`). */
export function serversText(servers: FidelityReport['servers'], pgbouncer: boolean): string {
  return [`PostgreSQL ${servers.postgresql}`, `Redis ${servers.redis}`, ...(pgbouncer && servers.pgbouncer ? [`PgBouncer ${servers.pgbouncer}`] : [])].join(' / ');
}

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * The status of one preset (both variants), or of the whole build when `presetId` is absent.
 * "checked" only when the report exists, was written for `buildSimHash`, and covers the preset;
 * the text names the servers the run used and the differences it found (0 when the transcript
 * agreed step for step). Never throws.
 */
export function fidelityStatus(info: FidelityBuildInfo, presetId?: string): FidelityStatus {
  const r = info.report;
  if (!r || r.simSourceHash !== info.buildSimHash) return { kind: 'unchecked', text: NOT_CHECKED, short: 'Not checked in this build' };
  const entries = presetId === undefined ? Object.values(r.presets) : r.presets[presetId] ? [r.presets[presetId]] : [];
  const results = entries.flatMap((p) => [p?.withoutFix, p?.withFix]).filter((x): x is FidelityVariantResult => x !== undefined);
  if (results.length === 0) return { kind: 'unchecked', text: 'Not checked in this build: the last fidelity run did not replay this scenario.', short: 'Not checked in this build' };
  const replays = results.flatMap((x) => [x.sql, x.redis]).filter((x): x is FidelityReplay => x !== undefined);
  const steps = replays.reduce((s, x) => s + x.steps, 0);
  const differences = replays.reduce((s, x) => s + x.differences, 0);
  const what = presetId === undefined ? `${count(Object.keys(r.presets).length, 'preset', 'presets')} (both variants)` : 'both variants';
  const servers = serversText(r.servers, results.some((x) => x.viaPgBouncer === true));
  const verdict = differences === 0 ? '0 differences' : `${count(differences, 'difference', 'differences')} — the model and the servers disagree here`;
  return {
    kind: 'checked', differences,
    text: `Checked against ${servers} on ${r.date}: the transcripts of ${what} replayed, ${count(steps, 'step', 'steps')}, ${verdict}.`,
    short: `Checked against ${servers}: ${differences === 0 ? '0 differences' : count(differences, 'difference', 'differences')}`,
  };
}

declare const __LOCKSCOPE_FIDELITY__: FidelityBuildInfo | undefined;

/** What this build was given (vite.config.ts defines it; absent → no report). */
export const BUILD_FIDELITY: FidelityBuildInfo = typeof __LOCKSCOPE_FIDELITY__ !== 'undefined' ? __LOCKSCOPE_FIDELITY__ : { report: null, buildSimHash: '' };
