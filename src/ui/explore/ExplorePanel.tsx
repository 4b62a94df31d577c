/**
 * "Break my design" (issue 11), on every scenario in the simulator and the editor: choose N (1–3)
 * and the fault kinds, run the fault search in Web Workers (./coordinator.ts, ./workerRunner.ts)
 * with a progress bar (schedules/s, time left) and Cancel, and read the report: schedules tried,
 * distinct traces, elapsed, and the counterexample in words with its violations — "Open in the
 * simulator" and "Replay against another mechanism" — or how far it looked and found nothing.
 * Below it, the mechanism × fault-kind matrix (./MatrixTable.tsx). The page never blocks: the
 * search runs off the main thread and the panel only merges what the workers return.
 * The odds (P(violation) against the lease TTL) are their own section (src/ui/odds/).
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { findPreset } from '../../sim';
import { applicableKinds, withoutFaults } from '../../sim/search/search';
import { useLockscope, useLockscopeStore } from '../store';
import { exploreParallel, type ExploreHandle, type ExploreOutcome, type ExploreProgress, type RangeRunner } from './coordinator';
import { openCounterexample, replayAgainstOther, scheduleInWords } from './actions';
import { MatrixTable } from './MatrixTable';
import { defaultEnv, fmtDuration, kindLabel, toTop, type ExploreEnv } from './labels';

export { kindLabel, fmtDuration, type ExploreEnv } from './labels';

type Status = { kind: 'idle' } | { kind: 'running'; progress: ExploreProgress | null } | { kind: 'done'; outcome: ExploreOutcome } | { kind: 'error'; message: string };

/** The panel (reads the running scenario from the store). */
export function ExplorePanel({ env = defaultEnv, titled = true }: { env?: ExploreEnv; titled?: boolean }) {
  const store = useLockscopeStore();
  const composed = useLockscope((s) => s.composed);
  const presetId = useLockscope((s) => s.presetId);
  const base = useMemo(() => withoutFaults(composed), [composed]);
  const applicable = useMemo(() => applicableKinds(base), [base]);
  const [maxFaults, setMaxFaults] = useState(2);
  const [chosen, setChosen] = useState<readonly string[] | null>(null); // null: every kind that applies
  const kinds = (chosen ?? applicable).filter((k) => applicable.includes(k));
  const [status, setStatus] = useState<Status>({ kind: 'idle' });
  const handle = useRef<ExploreHandle | null>(null);
  const runners = useRef<RangeRunner[]>([]);

  // Leaving the view cancels (and terminates the workers).
  useEffect(() => () => { handle.current?.cancel(); for (const r of runners.current) r.stop(); }, []);

  const start = () => {
    if (kinds.length === 0) return;
    runners.current = env.runners();
    setStatus({ kind: 'running', progress: null });
    const h = exploreParallel(base, { maxFaults, kinds, runners: runners.current, now: env.now, onProgress: (p) => setStatus({ kind: 'running', progress: p }) });
    handle.current = h;
    h.outcome.then((outcome) => {
      if (handle.current !== h) return;
      handle.current = null;
      for (const r of runners.current) r.stop();
      setStatus({ kind: 'done', outcome });
    }, (e: unknown) => {
      if (handle.current !== h) return;
      handle.current = null;
      setStatus({ kind: 'error', message: e instanceof Error ? e.message : String(e) });
    });
  };
  const cancel = () => handle.current?.cancel();
  const running = status.kind === 'running';
  // One search at a time: the matrix's workers and the search's would share the cores.
  const [matrixRunning, setMatrixRunning] = useState(false);
  const toggleKind = (k: string, on: boolean) => setChosen(on ? [...kinds, k] : kinds.filter((x) => x !== k));

  return (
    <section className="explore" aria-label="Break my design" data-testid="explore">
      {titled && <h2>Break my design</h2>}
      <p className="small">Search every placement of up to N faults, at the moments where one can matter, for the shortest schedule that breaks an invariant.</p>
      <div className="explore-controls">
        <label>
          Up to
          <select value={maxFaults} disabled={running} onChange={(e) => setMaxFaults(Number(e.target.value))} aria-label="Faults per schedule">
            {[1, 2, 3].map((n) => <option key={n} value={n}>{n}</option>)}
          </select>
          fault{maxFaults === 1 ? '' : 's'}
        </label>
        <fieldset className="explore-kinds" disabled={running}>
          <legend>Fault kinds</legend>
          {applicable.map((k) => (
            <label key={k}><input type="checkbox" checked={kinds.includes(k)} onChange={(e) => toggleKind(k, e.target.checked)} /> {kindLabel(k)}</label>
          ))}
        </fieldset>
        {running
          ? <button type="button" onClick={cancel}>Cancel</button>
          : <button type="button" className="primary" disabled={kinds.length === 0 || matrixRunning} onClick={start}>Explore</button>}
      </div>
      {status.kind === 'running' && <Progress p={status.progress} />}
      {status.kind === 'error' && <p className="error" role="alert">The search failed: {status.message}</p>}
      {status.kind === 'done' && (
        <Report outcome={status.outcome} onOpen={(ce) => { openCounterexample(store, ce); toTop(); }} onReplay={(ce) => { replayAgainstOther(store, ce); toTop(); }} hasPreset={presetId !== null && findPreset(presetId) !== undefined} />
      )}
      <MatrixTable scenario={base} maxFaults={maxFaults} kinds={kinds} env={env} disabled={running} onRunning={setMatrixRunning} />
    </section>
  );
}

function Progress({ p }: { p: ExploreProgress | null }) {
  const pct = p ? Math.round(p.fraction * 100) : 0;
  return (
    <div className="explore-progress" role="status" aria-live="polite" data-testid="explore-progress">
      <progress max={100} value={pct} aria-label="Search progress">{pct}%</progress>
      <span>
        {p ? <>{p.tried.toLocaleString('en')} of ≤ {p.total.toLocaleString('en')} schedules · {Math.round(p.perSecond).toLocaleString('en')} schedules/s · {p.etaMs === null ? 'time left: estimating' : `about ${fmtDuration(p.etaMs)} left`}</> : 'Starting the workers…'}
      </span>
    </div>
  );
}

function Report({ outcome: o, onOpen, onReplay, hasPreset }: { outcome: ExploreOutcome; onOpen: (ce: NonNullable<ExploreOutcome['counterexample']>) => void; onReplay: (ce: NonNullable<ExploreOutcome['counterexample']>) => void; hasPreset: boolean }) {
  const ce = o.counterexample;
  const figures = `${o.tried.toLocaleString('en')} schedule${o.tried === 1 ? '' : 's'} tried, ${o.distinct.toLocaleString('en')} distinct trace${o.distinct === 1 ? '' : 's'}, ${fmtDuration(o.elapsedMs)}`;
  const kinds = o.kinds.map(kindLabel).join(', ');
  return (
    <div className="explore-report" role="status" data-testid="explore-report">
      <p className="small">{figures}.</p>
      {ce ? (
        <>
          <p className="explore-found"><strong>Broken with {ce.faults.length} fault{ce.faults.length === 1 ? '' : 's'}:</strong> {scheduleInWords(ce)}.</p>
          <ul className="explore-violations">
            {ce.violations.map((v, i) => <li key={i}>{v.message}</li>)}
          </ul>
          <p className="explore-actions">
            <button type="button" className="primary" onClick={() => onOpen(ce)}>Open in the simulator</button>
            <button type="button" onClick={() => onReplay(ce)}>Replay against another mechanism</button>
            {!hasPreset && <span className="small"> (the compare view flips one switch)</span>}
          </p>
        </>
      ) : o.cancelled ? (
        <p>Cancelled: no violation in the {o.tried.toLocaleString('en')} schedules tried so far (of ≤ {o.total.toLocaleString('en')}).</p>
      ) : (
        <p className="explore-safe">No violation with ≤ {o.maxFaults} fault{o.maxFaults === 1 ? '' : 's'} of these kinds ({o.tried.toLocaleString('en')} schedules): {kinds}.{o.inconclusive > 0 && <> But {o.inconclusive.toLocaleString('en')} of those runs {o.inconclusive === 1 ? 'was' : 'were'} cut short (the horizon came while a worker was still at its job, or the event limit) and prove nothing: lengthen the horizon and search again.</>}</p>
      )}
    </div>
  );
}
