/**
 * "Run it yourself" in the share panel: the run as a transcript (src/sim/transcript) — copy the
 * combined text, download it, or download one file per session to paste into its psql or
 * redis-cli —, which calls of the run it does not replay (the SQS queue's requests, the
 * destination, faults: `Transcript.notReplayed`), and whether the fidelity suite checked this
 * preset's transcript in this build.
 */
import { useEffect, useMemo, useState } from 'react';
import { buildTranscript, renderSessionScript, renderTranscript, type RunResult, type Transcript } from '../../sim';
import { FidelityLine } from '../fidelity/FidelityLine';
import { download, downloadBase, unchangedPreset, WITHHELD_HASH } from './files';
import { runWhenIdle } from '../idle';

export { unchangedPreset } from './files';

/**
 * The file name of the whole transcript: `<base>-transcript.txt`. It interleaves every session
 * (psql and redis-cli alike) with notes and expected replies, so it is a document to follow, not a
 * script one tool runs: `.sql` would promise psql could run it (a Redis-only transcript was saved so).
 */
export function transcriptFileName(base: string): string {
  return `${base}-transcript.txt`;
}

/** The file name of one session's script: `<base>-c1.sql`, `<base>-redis.txt`. */
export function sessionFileName(base: string, session: { id: string; client: 'psql' | 'redis-cli' }): string {
  return `${base}-${session.id}.${session.client === 'psql' ? 'sql' : 'txt'}`;
}

/** Props: the run on screen; `hidden` while the view keeps the rest of the run back (predict mode): the transcript tells it all. */
export interface TranscriptExportProps {
  readonly run: RunResult;
  readonly hidden?: boolean;
  /** An interview candidate's page (`showHints` off): the notes are the sentences' facts, and the trace hash, the preset's, is withheld (`candidateTranscript`). */
  readonly withholdHash?: boolean;
}

/**
 * The transcript of `run`; for an interview candidate (`candidate`, the view without hints) its
 * notes are the sentences' facts (`TraceEvent.fact`, as the candidate's event log shows them: the
 * full narration explains what a missing mechanism lets happen) and the trace hash, the preset's,
 * is withheld.
 */
export function candidateTranscript(run: Pick<RunResult, 'scenario' | 'events' | 'traceHash'>, candidate: boolean): Transcript {
  if (!candidate) return buildTranscript(run);
  const t = buildTranscript({ ...run, events: run.events.map((e) => (e.fact === undefined ? e : { ...e, narration: e.fact })) });
  return { ...t, traceHash: WITHHELD_HASH };
}

/**
 * Runs up to this many events get their transcript while the section renders (about 1 ms); a
 * longer one is built in the idle time after the frame: a ~2,000-event run's took ~20 ms, inside
 * the render that followed every edit, which made the task after a click a long one (> 50 ms).
 */
export const TRANSCRIPT_SYNC_EVENTS = 400;

/** `candidateTranscript(run, candidate)`, at once for a short run, else after the frame in idle time (null until then). */
function useTranscript(run: RunResult, candidate: boolean, skip: boolean): Transcript | null {
  const now = !skip && run.events.length <= TRANSCRIPT_SYNC_EVENTS;
  const sync = useMemo(() => (now ? candidateTranscript(run, candidate) : null), [now, run, candidate]);
  const [late, setLate] = useState<{ run: RunResult; candidate: boolean; t: Transcript } | null>(null);
  useEffect(() => {
    if (now || skip) return;
    return runWhenIdle(() => {
      setLate({ run, candidate, t: candidateTranscript(run, candidate) });
      return false;
    });
  }, [now, skip, run, candidate]);
  if (sync) return sync;
  return late && late.run === run && late.candidate === candidate ? late.t : null;
}

/** The "Run it yourself" section. */
export function TranscriptExport({ run, hidden = false, withholdHash = false }: TranscriptExportProps) {
  const preset = useMemo(() => unchangedPreset(run.scenario), [run.scenario]);
  // An interview candidate's transcript does not carry the trace hash: it is the preset's, and
  // would name the scenario the candidate is asked about.
  const transcript = useTranscript(run, withholdHash, hidden);
  const [copy, setCopy] = useState<'idle' | 'copied' | 'manual'>('idle');
  // The text is written out when it is used (a copy, a download, the copy's line count), not on every run.
  const textNow = () => (transcript ? renderTranscript(transcript, preset?.variant) : '');
  const text = useMemo(() => (copy === 'idle' || !transcript ? '' : renderTranscript(transcript, preset?.variant)), [copy, transcript, preset]);
  // A candidate's names stay neutral (no preset id, no variant): `downloadBase`.
  const base = downloadBase(run.scenario, withholdHash);
  const onCopy = async () => {
    try {
      if (!navigator.clipboard?.writeText) throw new Error('no clipboard');
      await navigator.clipboard.writeText(textNow());
      setCopy('copied');
    } catch {
      setCopy('manual');
    }
  };
  if (hidden) {
    return (
      <div className="transcript-export" data-testid="transcript-export">
        <h3>Run it yourself</h3>
        <p className="small muted">The transcript tells the whole run: it is offered once the run is revealed.</p>
      </div>
    );
  }
  if (!transcript) {
    return (
      <div className="transcript-export" data-testid="transcript-export" aria-busy="true">
        <h3>Run it yourself</h3>
        <p className="small muted">Writing the transcript of this run ({run.events.length} events)…</p>
      </div>
    );
  }
  const outside = transcript.notReplayed.length > 0 && (
    <div className="small" data-testid="not-replayed">
      {transcript.sessions.length > 0 ? 'Not replayed (no server the transcript names receives these; they are comments where they occur):' : 'Its calls go to:'}
      <ul>{transcript.notReplayed.map((x) => <li key={x}>{x}</li>)}</ul>
    </div>
  );
  if (transcript.sessions.length === 0) {
    return (
      <div className="transcript-export" data-testid="transcript-export">
        <h3>Run it yourself</h3>
        <p className="small muted">
          {run.events.some((e) => e.kind === 'etcd')
            ? 'This run sends nothing to PostgreSQL or Redis, and its etcd requests are outside what a transcript replays (a real server gives other lease ids, and its TTLs run in real time): the event log shows each etcdctl line and its reply.'
            : 'This run sends nothing to PostgreSQL or Redis: there is no transcript to replay.'}
        </p>
        {outside}
        <p className="small muted">{preset ? <FidelityLine presetId={preset.id} variant={preset.variant} /> : <FidelityLine edited neutral={withholdHash} />}</p>
      </div>
    );
  }
  return (
    <div className="transcript-export" data-testid="transcript-export">
      <h3>Run it yourself</h3>
      <p className="small">
        The run as {transcript.sessions.map((s) => `${s.id} (${s.client})`).join(', ')}: each command in trace order with the reply the
        run got under it, “(blocks)” where it waits. Open one terminal per session and follow the steps.
      </p>
      {outside}
      <p className="small muted">{preset ? <FidelityLine presetId={preset.id} variant={preset.variant} /> : <FidelityLine edited neutral={withholdHash} />}</p>
      <div className="share-actions">
        <button type="button" onClick={() => void onCopy()}>Copy transcript</button>
        <button type="button" onClick={() => download(new Blob([textNow()], { type: 'text/plain' }), transcriptFileName(base))}>Download transcript</button>
        {transcript.sessions.map((s) => (
          <button key={s.id} type="button" onClick={() => download(new Blob([renderSessionScript(transcript, s.id, preset?.variant)], { type: 'text/plain' }), sessionFileName(base, s))}>
            {sessionFileName(base, s)}
          </button>
        ))}
      </div>
      {copy === 'copied' && <p className="small share-status" role="status">Copied the transcript ({text.split('\n').length} lines).</p>}
      {copy === 'manual' && (
        <label className="copy-field">
          Copying is blocked here. Select the text and copy it:
          <textarea readOnly rows={8} value={text} data-testid="transcript-text" onFocus={(e) => e.target.select()} />
        </label>
      )}
    </div>
  );
}
