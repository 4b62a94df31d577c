/**
 * The mechanism × fault-kind matrix (./matrix.ts) as a table, filled cell by cell as the workers
 * finish: "safe up to N faults (K schedules)" or a link to the cell's shortest counterexample
 * (opens it in the simulator). Cancellable like the search.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { findPreset, type Scenario } from '../../sim';
import { useLockscope, useLockscopeStore } from '../store';
import { exploreMatrix, matrixRows, type MatrixCell, type MatrixHandle } from './matrix';
import type { RangeRunner } from './coordinator';
import { openCounterexample, scheduleInWords } from './actions';
import { kindLabel, toTop, type ExploreEnv } from './labels';

/** The matrix for `scenario` (faults set aside), searched up to `maxFaults` of each of `kinds`. */
export function MatrixTable({ scenario, maxFaults, kinds, env, disabled, onRunning }: { scenario: Scenario; maxFaults: number; kinds: readonly string[]; env: ExploreEnv; disabled: boolean; onRunning?: (running: boolean) => void }) {
  const store = useLockscopeStore();
  const presetId = useLockscope((s) => s.presetId);
  const rows = useMemo(() => matrixRows(scenario, presetId ? findPreset(presetId) : undefined), [scenario, presetId]);
  const [cells, setCells] = useState<ReadonlyMap<string, MatrixCell>>(new Map());
  const [state, setState] = useState<'idle' | 'running' | 'done' | 'cancelled'>('idle');
  const handle = useRef<MatrixHandle | null>(null);
  const runners = useRef<RangeRunner[]>([]);
  useEffect(() => () => { handle.current?.cancel(); for (const r of runners.current) r.stop(); }, []);

  const start = () => {
    runners.current = env.runners();
    setCells(new Map());
    setState('running');
    const h = exploreMatrix(rows, kinds, maxFaults, runners.current, env.now, (c) => setCells((m) => new Map(m).set(`${c.row}|${c.kind}`, c)));
    handle.current = h;
    h.done.then((r) => {
      if (handle.current !== h) return;
      handle.current = null;
      for (const x of runners.current) x.stop();
      setState(r.cancelled ? 'cancelled' : 'done');
    }, () => { setState('cancelled'); });
  };
  const running = state === 'running';
  useEffect(() => { onRunning?.(running); }, [running, onRunning]);
  return (
    <div className="explore-matrix" data-testid="explore-matrix">
      <h3>Which mechanism holds against which fault</h3>
      <p className="small">
        Each cell searches one mechanism under one fault kind alone, up to {maxFaults} fault{maxFaults === 1 ? '' : 's'}.{' '}
        {running
          ? <button type="button" onClick={() => handle.current?.cancel()}>Cancel the matrix</button>
          : <button type="button" disabled={disabled || kinds.length === 0} onClick={start}>{state === 'idle' ? 'Compute the matrix' : 'Compute again'}</button>}
        {state === 'cancelled' && <span> Cancelled.</span>}
      </p>
      {state !== 'idle' && (
        <div className="matrix-scroll">
          <table>
            <thead>
              <tr><th scope="col">Mechanism</th>{kinds.map((k) => <th key={k} scope="col">{kindLabel(k)}</th>)}</tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id}>
                  <th scope="row">{r.label}</th>
                  {kinds.map((k) => {
                    const c = cells.get(`${r.id}|${k}`);
                    const ce = c?.outcome.counterexample;
                    return (
                      <td key={k} className={c ? (ce ? 'broken' : 'safe') : 'pending'} data-testid={`cell-${r.id}-${k}`}>
                        {!c ? (running ? '…' : '—')
                          : ce ? <button type="button" className="link" title={scheduleInWords(ce)} onClick={() => { openCounterexample(store, ce); toTop(); }}>breaks with {ce.faults.length} fault{ce.faults.length === 1 ? '' : 's'}</button>
                            : <>safe up to {c.outcome.maxFaults} fault{c.outcome.maxFaults === 1 ? '' : 's'} ({c.outcome.tried.toLocaleString('en')} schedules)</>}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
