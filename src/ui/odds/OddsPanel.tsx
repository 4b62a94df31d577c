/**
 * "How often? (the odds)": P(violation) of the current scenario against its lease TTL, under the
 * pauses a team really sees (p50 and p99 of their GC or stall pauses, fitted as a log-normal) and
 * a crash rate — a line chart with its 95% band and a TTL × pause-length heat map. The core is
 * `src/sim/search/odds.ts`; it runs in a Web Worker (`oddsClient.ts`), with a progress bar and
 * Cancel. The inputs are this panel's own state (not in the link): they describe the user's
 * production, not the scenario. Only for scenarios that take a lease (`oddsNotApplicable`).
 */
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import type { Scenario } from '../../sim';
import { defaultHeatPausesMs, defaultTtlsMs, oddsNotApplicable, validateOddsInput, type OddsInput, type OddsProgress, type OddsResult } from '../../sim/search/odds';
import { useLockscope } from '../store';
import { OddsHeatMap, OddsLineChart, fmtP, fmtSeconds } from './OddsCharts';
import { secondsFieldValue } from '../fields/SecondsInput';
import { startOddsWorker, type OddsJob, type StartOdds } from './oddsClient';
import './odds.css';

/** The panel's fields as typed (strings, so a half-typed value stays on screen). */
export interface OddsForm {
  p50S: string;
  p99S: string;
  pausePct: string;
  crashPct: string;
  restartS: string;
  ttlsS: string;
  pausesS: string;
  runs: string;
  heatRuns: string;
  seed: string;
}

/** A list of durations as the seconds the TTL and pause fields take (`SecondsInput`'s rule: ms ÷ 1000, as typed). */
const secondsList = (ms: readonly number[]): string => ms.map(secondsFieldValue).join(', ');

/** The form's starting values for a scenario: pauses p50 1 s, p99 20 s; TTLs and heat-map pauses around its TTL. */
export function defaultForm(scenario: Scenario): OddsForm {
  return {
    p50S: '1', p99S: '20', pausePct: '30', crashPct: '2', restartS: '1',
    ttlsS: secondsList(defaultTtlsMs(scenario)), pausesS: secondsList(defaultHeatPausesMs(scenario)),
    runs: '200', heatRuns: '30', seed: '1',
  };
}

function num(s: string): number {
  return s.trim() === '' ? NaN : Number(s);
}

/** The form as an `OddsInput` (seconds → whole ms, percent → probability), and what is wrong with it. */
export function inputOf(f: OddsForm): { input: OddsInput; errors: string[] } {
  const list = (s: string) => s.split(/[,\s]+/).filter(Boolean).map((v) => Math.round(num(v) * 1000));
  const input: OddsInput = {
    pauseP50Ms: Math.round(num(f.p50S) * 1000),
    pauseP99Ms: Math.round(num(f.p99S) * 1000),
    pauseProbability: num(f.pausePct) / 100,
    crashRate: num(f.crashPct) / 100,
    restartAfterMs: Math.round(num(f.restartS) * 1000),
    ttlsMs: list(f.ttlsS),
    heatPausesMs: list(f.pausesS),
    runsPerTtl: num(f.runs),
    heatRuns: num(f.heatRuns),
    seed: num(f.seed),
  };
  return { input, errors: validateOddsInput(input) };
}

/** The scenario without its faults, as a key: the odds draw their own faults, so a fault edit keeps a result. */
function oddsKey(s: Scenario): string {
  return JSON.stringify({ ...s, faults: [] });
}

function Field({ label, value, onChange, hint, wide }: { label: string; value: string; onChange: (v: string) => void; hint?: string; wide?: boolean }) {
  const id = useId();
  return (
    <div className={`field${wide ? ' wide' : ''}`}>
      <label htmlFor={id}>{label}</label>
      <input id={id} type="text" inputMode="decimal" value={value} onChange={(e) => onChange(e.target.value)} aria-describedby={hint ? `${id}-h` : undefined} />
      {hint && <span id={`${id}-h`} className="field-hint">{hint}</span>}
    </div>
  );
}

type Status = { kind: 'idle' } | { kind: 'running'; progress: OddsProgress } | { kind: 'error'; message: string } | { kind: 'cancelled' };

/** The odds panel for the store's scenario. `start` is the seam for tests (default: a Web Worker). */
export function OddsPanel({ start = startOddsWorker }: { start?: StartOdds }) {
  const scenario = useLockscope((s) => s.scenario);
  const why = oddsNotApplicable(scenario);
  const [form, setForm] = useState<OddsForm>(() => defaultForm(scenario));
  const [status, setStatus] = useState<Status>({ kind: 'idle' });
  const [result, setResult] = useState<{ key: string; input: OddsInput; result: OddsResult } | null>(null);
  const job = useRef<OddsJob | null>(null);
  // Another scenario with another TTL (a preset change, a TTL edit): the TTL and pause lists the
  // user left at their defaults follow the new TTL; what they typed stays.
  const defaults = useRef(form);
  const ttlNow = scenario.lease.ttlMs;
  useEffect(() => {
    const next = defaultForm(scenario);
    const old = defaults.current;
    defaults.current = next;
    setForm((f) => ({ ...f, ttlsS: f.ttlsS === old.ttlsS ? next.ttlsS : f.ttlsS, pausesS: f.pausesS === old.pausesS ? next.pausesS : f.pausesS }));
  }, [ttlNow]); // the lists depend on the TTL only
  const key = useMemo(() => oddsKey(scenario), [scenario]);
  const { input, errors } = useMemo(() => inputOf(form), [form]);

  // A different scenario (not only other faults): stop what runs; the old result no longer applies.
  useEffect(() => () => {
    job.current?.cancel();
    job.current = null;
  }, [key]);
  useEffect(() => {
    setStatus((s) => (s.kind === 'running' ? { kind: 'idle' } : s));
  }, [key]);

  if (why) {
    return <p className="small muted odds-na">Does not apply here. {why}</p>;
  }

  const set = (k: keyof OddsForm) => (v: string) => setForm((f) => ({ ...f, [k]: v }));
  const run = () => {
    job.current?.cancel();
    const runKey = key;
    const runInput = input;
    setStatus({ kind: 'running', progress: { done: 0, total: runInput.ttlsMs.length * (runInput.runsPerTtl + (runInput.heatPausesMs?.length ?? 0) * (runInput.heatRuns ?? runInput.runsPerTtl)) } });
    job.current = start({ scenario, input: runInput }, {
      onProgress: (progress) => setStatus({ kind: 'running', progress }),
      onDone: (r) => {
        job.current = null;
        setResult({ key: runKey, input: runInput, result: r });
        setStatus({ kind: 'idle' });
      },
      onError: (message) => {
        job.current = null;
        setStatus({ kind: 'error', message });
      },
    });
  };
  const cancel = () => {
    job.current?.cancel();
    job.current = null;
    setStatus({ kind: 'cancelled' });
  };
  const running = status.kind === 'running';
  const shown = result && result.key === key ? result : null;
  const safeTtl = shown?.result.points.find((p) => p.violations === 0 && shown.result.points.filter((q) => q.ttlMs > p.ttlMs).every((q) => q.violations === 0));

  return (
    <div className="odds">
      <p className="small muted odds-intro">
        Exhaustive search says whether a design <em>can</em> break; this says how often, with the pauses you really see.
        Each run, every worker pauses once with the given probability (before a random step, for a length drawn from a log-normal fitted to your p50 and p99)
        and crashes with the given rate (restarting after the delay); the same seed draws the same runs. These settings stay in this page (not in the link).
      </p>
      <form className="odds-form" onSubmit={(e) => { e.preventDefault(); if (!running && errors.length === 0) run(); }}>
        <fieldset>
          <legend>Your pauses and crashes</legend>
          <div className="row wrap">
            <Field label="Pause p50 (s)" value={form.p50S} onChange={set('p50S')} />
            <Field label="Pause p99 (s)" value={form.p99S} onChange={set('p99S')} />
            <Field label="Pause probability (%)" value={form.pausePct} onChange={set('pausePct')} hint="per worker per job" />
            <Field label="Crash rate (%)" value={form.crashPct} onChange={set('crashPct')} hint="per worker per job" />
            <Field label="Restart after (s)" value={form.restartS} onChange={set('restartS')} />
          </div>
        </fieldset>
        <fieldset>
          <legend>What to try</legend>
          <div className="row wrap">
            <Field label="Lease TTLs (s)" value={form.ttlsS} onChange={set('ttlsS')} wide />
            <Field label="Heat-map pause lengths (s)" value={form.pausesS} onChange={set('pausesS')} wide />
          </div>
          <div className="row wrap">
            <Field label="Runs per TTL" value={form.runs} onChange={set('runs')} />
            <Field label="Runs per heat-map cell" value={form.heatRuns} onChange={set('heatRuns')} />
            <Field label="Seed" value={form.seed} onChange={set('seed')} />
          </div>
        </fieldset>
        {errors.length > 0 && (
          <ul className="field-error odds-errors" role="alert">{errors.map((e) => <li key={e}>{e}</li>)}</ul>
        )}
        <div className="odds-actions">
          <button type="submit" disabled={running || errors.length > 0}>{shown ? 'Run the odds again' : 'Run the odds'}</button>
          {running && (
            <>
              <progress className="odds-progress" max={status.progress.total} value={status.progress.done} aria-label="Runs done" />
              <span className="small" aria-live="polite">{status.progress.done.toLocaleString('en')} of {status.progress.total.toLocaleString('en')} runs</span>
              <button type="button" onClick={cancel}>Cancel</button>
            </>
          )}
          {status.kind === 'cancelled' && <span className="small muted" role="status">Cancelled.</span>}
          {status.kind === 'error' && <span className="field-error" role="alert">The odds failed: {status.message}</span>}
        </div>
      </form>
      {shown && (
        <div className="odds-result" aria-label="The odds">
          <p className="small odds-summary" role="status">
            {safeTtl
              ? <>From a TTL of <strong>{fmtSeconds(safeTtl.ttlMs)}</strong> up, no run of {shown.input.runsPerTtl} violated (P below {fmtP(safeTtl.high)} at 95% confidence).</>
              : <>Every TTL tried violated in some runs: the longest, {fmtSeconds(shown.result.points[shown.result.points.length - 1]!.ttlMs)}, in {fmtP(shown.result.points[shown.result.points.length - 1]!.p)}.</>}
            {' '}<span className="muted">Fitted pauses: median {fmtSeconds(Math.round(Math.exp(shown.result.fit.mu)))}, σ {Math.round(shown.result.fit.sigma * 100) / 100} (log-normal); seed {shown.input.seed}; {shown.result.totalRuns.toLocaleString('en')} runs.</span>
          </p>
          <div className="odds-charts">
            <OddsLineChart points={shown.result.points} currentTtlMs={scenario.lease.ttlMs} runs={shown.input.runsPerTtl} />
            {shown.result.heat.length > 0 && <OddsHeatMap cells={shown.result.heat} runs={shown.input.heatRuns ?? shown.input.runsPerTtl} />}
          </div>
          {shown.result.heat.length > 0 && (
            <p className="small muted" data-testid="odds-two-questions">
              The two charts answer different questions. The line: how often it breaks with pauses drawn from your p50 and p99 (most runs pause briefly or not at all).
              The heat map: how often it breaks <em>if</em> one worker pauses exactly that long, before a random step. A long pause is rare in the first and certain in the second.
            </p>
          )}
        </div>
      )}
    </div>
  );
}
