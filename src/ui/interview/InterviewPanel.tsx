/**
 * Interview mode's panels in the simulator (./kit.ts has the logic):
 * - `InterviewSetupForm` (outside an interview, inside ./InterviewSetup.tsx's disclosure): choose
 *   the faults the grading allows, the model answer and a rubric, and make the two links
 *   (follow-ups found by the fault search). For a preset's starting variant the allowed kinds
 *   start as those its fixed variant (the model answer) withstands (`passingKinds`), each kind
 *   left out named with the schedule that breaks it; and whatever is chosen, "Make the links"
 *   warns when the model answer fails the grading, naming the fault and the kinds it passes.
 * - `InterviewerNotesPanel` (the interviewer's link): the model answer, each follow-up with
 *   "Show this schedule", the rubric, and the candidate's link again.
 * - `CheckDesign` (both sides of an interview): "Check my design" grades the mechanism on screen
 *   against the allowed faults (the search over Web Workers, ../explore/coordinator.ts), a timer,
 *   and the transcript of what was tried, in order — both kept in this tab across a reload of the
 *   interview's link (./session.ts).
 * The simulator loads this module as its own chunk (../lazyViews.ts).
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { describeFault, findPreset, fmtTime, type Scenario } from '../../sim';
import { crossFieldErrors } from '../../sim/scenario/validate';
import { applicableKinds, withoutFaults, withSchedule } from '../../sim/search/search';
import { encodeShare, shareFromScenario, type ShareState } from '../../share/link';
import { deriveRun, indexOfEvent, useLockscope, useLockscopeStore } from '../store';
import type { InterviewSetupState, ModelFailure } from './InterviewSetup';
import type { InterviewerNotes } from '../store/types';
import { uniqueEditKey } from '../store/scenarioSlice';
import { exploreParallel } from '../explore/coordinator';
import { openCounterexample } from '../explore/actions';
import { defaultEnv, kindLabel, type ExploreEnv } from '../explore/labels';
import { interviewShare } from '../url/urlState';
import { defaultSessionEnv, readSession, writeSession, type SessionEnv } from './session';
import { DEFAULT_RUBRIC, defaultAnswer, deriveFollowUps, designInWords, gradeDesign, gradeInWords, interviewLinks, passingKinds, promptFaultsFor, randomToken, scheduleInWordsOf, setupOf, type FindCounterexample, type Grade, type PassingKinds } from './kit';

/** The fault search over the env's runners (Web Workers in the app), returning its counterexample. */
export function findWith(env: ExploreEnv): FindCounterexample {
  return async (scenario, maxFaults, kinds, keepOwnFaults) => {
    const runners = env.runners();
    try {
      return (await exploreParallel(scenario, { maxFaults, kinds, keepOwnFaults: keepOwnFaults ?? false, runners, now: env.now }).outcome).counterexample;
    } finally {
      for (const r of runners) r.stop();
    }
  };
}

/** An interview grades with the prompt's own faults in every schedule (kit.ts `GradeOptions`). */
const KEEP = { keepOwnFaults: true } as const;

/**
 * The model answer as the interview grades it: the preset's fixed variant, with the prompt's
 * faults when the interviewer changed them and the two variants share their workers (so each
 * fault names the same worker and step); else the fixed variant's own faults.
 */
export function modelWithPromptFaults(withFix: Scenario, withoutFix: Scenario, prompt: Scenario): Scenario {
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  if (same(prompt.faults, withoutFix.faults) || !same(withFix.workers, prompt.workers)) return withFix;
  return { ...withFix, faults: [...prompt.faults] };
}

/**
 * The design "Check my design" grades: the mechanism on screen with the faults the interview
 * opened with (the prompt's: a candidate who deletes a fault from the panel is still graded
 * against it; with a longer TTL its pauses grow by the increase, kit.ts `promptFaultsFor`), unless the candidate's own edits left those faults naming steps that are gone.
 */
export function designToGrade(onScreen: Scenario, prompt: Scenario | null): Scenario {
  if (!prompt) return onScreen;
  const design: Scenario = { ...onScreen, faults: promptFaultsFor(onScreen, prompt).faults };
  return crossFieldErrors(design).length === 0 ? design : onScreen;
}

const urlOf = (st: ShareState) => `${window.location.origin}${window.location.pathname}#${encodeShare(st)}`;
const mmss = (ms: number) => `${Math.floor(ms / 60_000)}:${String(Math.floor((ms % 60_000) / 1000)).padStart(2, '0')}`;

function CopyField({ label, value, testId }: { label: string; value: string; testId: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="interview-link">
      <label>
        <span>{label}</span>
        <input type="text" readOnly value={value} data-testid={testId} onFocus={(e) => e.currentTarget.select()} />
      </label>
      <button type="button" onClick={() => { void navigator.clipboard?.writeText(value).then(() => setCopied(true), () => setCopied(false)); }}>{copied ? 'Copied' : 'Copy'}</button>
    </div>
  );
}

/**
 * The body of "Interview: two links from this scenario" (./InterviewSetup.tsx holds the
 * disclosure and, in `form`, what was chosen and made, so that closing and reopening it keeps them).
 */
export function InterviewSetupForm({ env = defaultEnv, form, setForm }: { env?: ExploreEnv; form: InterviewSetupState; setForm: (update: (f: InterviewSetupState) => InterviewSetupState) => void }) {
  const store = useLockscopeStore();
  const composed = useLockscope((s) => s.composed);
  const presetId = useLockscope((s) => s.presetId);
  const preset = presetId ? findPreset(presetId) : undefined;
  const applicable = useMemo(() => applicableKinds(withoutFaults(composed)), [composed]);
  const variant = useLockscope((s) => s.variant);
  const { maxFaults, chosen, status } = form;
  const rubric = form.rubric ?? DEFAULT_RUBRIC.join('\n');
  // The model answer, as a scenario: the preset's fixed variant, when the starting one is on screen.
  const model = useMemo(() => (preset && variant === 'without' ? modelWithPromptFaults(preset.withFix, preset.withoutFix, composed) : undefined), [preset, variant, composed]);
  // The default allowed kinds: those the model answer withstands (searched when the form opens).
  const [defaults, setDefaults] = useState<{ readonly of: Scenario; readonly maxFaults: number; readonly result: PassingKinds | null } | null>(null);
  useEffect(() => {
    if (!model) return;
    let live = true;
    setDefaults({ of: composed, maxFaults, result: null });
    passingKinds(model, composed, applicable, maxFaults, findWith(env), KEEP).then(
      (result) => { if (live) setDefaults({ of: composed, maxFaults, result }); },
      () => { if (live) setDefaults(null); },
    );
    return () => { live = false; };
  }, [model, composed, applicable, maxFaults, env]);
  const current = defaults && defaults.of === composed && defaults.maxFaults === maxFaults ? defaults : null;
  const searchingDefaults = model !== undefined && chosen === null && current?.result === null;
  const defaultKinds = current?.result && current.result.kinds.length > 0 ? current.result.kinds : null;
  const kinds = (chosen ?? defaultKinds ?? applicable).filter((k) => applicable.includes(k));
  const answerText = form.answer ?? defaultAnswer(preset);
  const setStatus = (st: InterviewSetupState['status']) => setForm((f) => ({ ...f, status: st }));

  const make = async (use: readonly string[] = kinds) => {
    setStatus({ kind: 'busy' });
    try {
      const scenario: Scenario = store.getState().composed;
      const followUps = await deriveFollowUps(scenario, model, use, maxFaults, findWith(env), KEEP);
      const links = interviewLinks(scenario, { kinds: use, maxFaults, answer: answerText, rubric: rubric.split('\n'), token: randomToken(), id: randomToken() }, followUps);
      // Does the model answer pass its own grading? If not, say which fault breaks it and what it withstands.
      // (The default set is one it withstands by construction: no search needed.)
      const isDefault = current?.result != null && use.length === current.result.kinds.length && use.every((k) => current.result!.kinds.includes(k));
      const own = model && !isDefault ? await gradeDesign(model, use, maxFaults, findWith(env), KEEP) : null;
      const modelFails = own && !own.safe ? { grade: own, passing: await passingKinds(model!, scenario, use, maxFaults, findWith(env), KEEP) } : undefined;
      setStatus({ kind: 'done', links, kinds: use, maxFaults, modelFails });
    } catch (e) {
      setStatus({ kind: 'error', message: e instanceof Error ? e.message : String(e) });
    }
  };

  return (
    <div className="interview-body">
      <p className="small">The candidate's link hides every hint of the answer; the interviewer's adds the model answer, follow-up questions (each with the faults that make it bite, found by the fault search) and a rubric. It carries a random token the candidate's lacks.</p>
      <div className="explore-controls">
        <label>
          Grade against up to
          <select value={maxFaults} onChange={(e) => { const n = Number(e.target.value); setForm((f) => ({ ...f, maxFaults: n })); }} aria-label="Faults per schedule the grading allows">
            {[1, 2, 3].map((n) => <option key={n} value={n}>{n}</option>)}
          </select>
          fault{maxFaults === 1 ? '' : 's'}
        </label>
        <fieldset className="explore-kinds">
          <legend>Fault kinds the grading allows</legend>
          {applicable.map((k) => (
            <label key={k}><input type="checkbox" checked={kinds.includes(k)} onChange={(e) => { const on = e.target.checked; setForm((f) => { const was = (f.chosen ?? defaultKinds ?? applicable).filter((x) => x !== k); return { ...f, chosen: on ? [...was, k] : was }; }); }} /> {kindLabel(k)}</label>
          ))}
        </fieldset>
      </div>
      {searchingDefaults && <p className="small" role="status">Finding the kinds of fault the model answer withstands…</p>}
      {chosen === null && current?.result && current.result.leftOut.length > 0 && (
        <div className="small default-kinds" data-testid="default-kinds-note">
          <p>Left out by default, since each breaks the model answer:</p>
          <ul>{current.result.leftOut.map((o) => <li key={o.kinds.join('+')}><strong>{o.kinds.map(kindLabel).join(' + ')}</strong>: with {o.schedule}, {o.invariant}.</li>)}</ul>
          {current.result.kinds.length === 0 && <p>No kind of fault is left that it withstands.</p>}
          {current.result.kinds.length > 0 && current.result.startHolds && <p>Against the kinds left in, the starting design holds too: Check my design cannot tell the two apart (allow a kind above to make it bite; the model answer then breaks as well).</p>}
        </div>
      )}
      <label className="interview-text">
        <span>Model answer</span>
        <textarea rows={2} maxLength={600} value={answerText} onChange={(e) => { const v = e.target.value; setForm((f) => ({ ...f, answer: v })); }} />
      </label>
      <label className="interview-text">
        <span>Rubric (one line each)</span>
        <textarea rows={4} value={rubric} onChange={(e) => { const v = e.target.value; setForm((f) => ({ ...f, rubric: v })); }} />
      </label>
      <p><button type="button" className="primary" disabled={kinds.length === 0 || status.kind === 'busy' || searchingDefaults} onClick={() => void make()}>Make the links</button></p>
      <div role="status">
        {status.kind === 'busy' && <p className="small">Searching for the follow-ups' counterexamples…</p>}
        {status.kind === 'error' && <p className="error">The search failed: {status.message}</p>}
        {status.kind === 'done' && (
          <>
            {status.modelFails && <ModelFails fails={status.modelFails} onAllow={(k) => { setForm((f) => ({ ...f, chosen: [...k] })); void make(k); }} />}
            <CopyField label="Candidate's link" value={urlOf(status.links.candidate)} testId="candidate-link" />
            <CopyField label="Interviewer's link (keep it private)" value={urlOf(status.links.interviewer)} testId="interviewer-link" />
            <p><button type="button" onClick={() => store.getState().setInterview(setupOf(status.links, 'interviewer', status))}>Open the interviewer's view here</button></p>
          </>
        )}
      </div>
    </div>
  );
}

/** The warning of "Make the links" when the model answer fails the grading: the fault that breaks it, and the kinds it withstands. */
function ModelFails({ fails, onAllow }: { fails: ModelFailure; onAllow: (kinds: readonly string[]) => void }) {
  const { grade, passing } = fails;
  if (grade.safe) return null;
  return (
    <div className="model-fails" role="alert" data-testid="model-answer-fails">
      <p>The model answer fails this grading: with {scheduleInWordsOf(grade)}, it breaks: {grade.invariant}.</p>
      {passing.kinds.length > 0
        ? <p>It passes against: {passing.kinds.map(kindLabel).join(', ')}.{passing.startHolds ? ' (The starting design holds against those too.)' : ''} <button type="button" onClick={() => onAllow(passing.kinds)}>Allow only these and make the links again</button></p>
        : <p>No set of the allowed kinds lets it pass{passing.brokenWithoutFaults ? (grade.own ? ": it breaks under the prompt's own faults alone" : ': it breaks with no fault at all') : ''}.</p>}
    </div>
  );
}

/** The interviewer's notes (only on the interviewer's link). */
export function InterviewerNotesPanel() {
  const store = useLockscopeStore();
  const interview = useLockscope((s) => s.interview);
  const composed = useLockscope((s) => s.composed);
  const presetId = useLockscope((s) => s.presetId);
  // The starting design as the notes first showed (if "Check my design" has not recorded the interview's own).
  const opened = useRef<{ readonly of: typeof interview; readonly s: Scenario } | null>(null);
  if (opened.current?.of !== interview) opened.current = { of: interview, s: composed };
  if (interview?.role !== 'interviewer' || !interview.notes) return null;
  const preset = presetId ? findPreset(presetId) : undefined;
  const n = interview.notes;
  const candidate = shareFromScenario(composed, interviewShare({ ...interview, role: 'candidate' }));
  // A follow-up about the model answer (`m`) shows its schedule on the model answer, the others on
  // the starting design (the scenario the interview opened with); the cursor goes to the first
  // event the verdict cites, and the page to the timeline, so the schedule is seen to bite.
  const showSchedule = (f: InterviewerNotes['q'][number]) => {
    const s = store.getState();
    const start = s.interviewBase ?? opened.current?.s ?? s.composed;
    const design = f.m && preset ? modelWithPromptFaults(preset.withFix, preset.withoutFix, start) : start;
    s.replaceScenario(withSchedule(design, f.x), f.m && preset ? "Follow-up: the model answer with its fault schedule" : 'Follow-up: its fault schedule', uniqueEditKey('interview'));
    const after = store.getState();
    const first = deriveRun(after.composed).verdict.violations[0]?.eventIds[0];
    if (first) after.setCursorIndex(indexOfEvent(deriveRun(after.composed), first));
    document.getElementById('main')?.scrollIntoView?.({ block: 'start' });
  };
  return (
    <section className="panel interview-notes" aria-label="Interviewer's notes" data-testid="interviewer-notes">
      <h2>Interviewer's notes</h2>
      <h3>Model answer</h3>
      <p data-testid="model-answer">{n.a || '(none written)'}</p>
      {n.q.length > 0 && (
        <>
          <h3>Follow-up questions</h3>
          <ol className="follow-ups">
            {n.q.map((f, i) => (
              <li key={i}>{f.q}{f.x.length > 0 && <> <button type="button" className="link" onClick={() => showSchedule(f)}>{f.m && preset ? 'Show it on the model answer' : 'Show this schedule'}</button></>}</li>
            ))}
          </ol>
        </>
      )}
      {n.r.length > 0 && (
        <>
          <h3>Rubric</h3>
          <ul>{n.r.map((r, i) => <li key={i}>{r}</li>)}</ul>
        </>
      )}
      <CopyField label="Candidate's link" value={urlOf(candidate)} testId="candidate-link" />
    </section>
  );
}

/** "Check my design": grade the mechanism on screen against the faults the interviewer allowed; the timer and the transcript. */
export function CheckDesign({ env = defaultEnv, session = defaultSessionEnv }: { env?: ExploreEnv; session?: SessionEnv }) {
  const store = useLockscopeStore();
  const interview = useLockscope((s) => s.interview);
  const transcript = useLockscope((s) => s.transcript);
  const clock = useLockscope((s) => s.interviewClockMs);
  const composed = useLockscope((s) => s.composed);
  const interviewBase = useLockscope((s) => s.interviewBase);
  const [now, setNow] = useState(() => env.now());
  const [status, setStatus] = useState<{ kind: 'idle' } | { kind: 'busy' } | { kind: 'done'; grade: Grade } | { kind: 'error'; message: string }>({ kind: 'idle' });
  const serial = useRef(0);
  useEffect(() => {
    if (!interview) return;
    // A reload of this interview's link takes up its kept clock and transcript (./session.ts); else the clock starts now.
    const s = store.getState();
    const kept = s.interviewClockMs === null ? readSession(session, interview) : null;
    if (kept) s.resumeInterview(env.now() - Math.max(0, session.wallNow() - kept.startedAt), kept.base, kept.transcript);
    else s.startInterviewClock(env.now(), s.composed);
    // Kept whenever the clock, the starting design or the transcript change (and once now: a reload before the first check keeps the timer).
    const keep = (st: typeof s) => {
      if (st.interview !== interview || st.interviewClockMs === null || !st.interviewBase) return;
      writeSession(session, interview, { startedAt: session.wallNow() - (env.now() - st.interviewClockMs), base: st.interviewBase, transcript: st.transcript });
    };
    keep(store.getState());
    const unsubscribe = store.subscribe((st, prev) => {
      if (st.transcript !== prev.transcript || st.interviewClockMs !== prev.interviewClockMs || st.interviewBase !== prev.interviewBase) keep(st);
    });
    setNow(env.now());
    const t = setInterval(() => setNow(env.now()), 1000);
    return () => { clearInterval(t); unsubscribe(); };
  }, [interview, store, env, session]);
  if (!interview) return null;
  const elapsed = clock === null ? 0 : Math.max(0, now - clock);

  const check = async () => {
    const mine = ++serial.current;
    const design = designToGrade(store.getState().composed, store.getState().interviewBase);
    setStatus({ kind: 'busy' });
    try {
      const grade = await gradeDesign(design, interview.kinds, interview.maxFaults, findWith(env), KEEP);
      if (mine !== serial.current) return;
      setStatus({ kind: 'done', grade });
      const s = store.getState();
      s.addTranscript({ atMs: Math.max(0, env.now() - (s.interviewClockMs ?? env.now())), design: designInWords(design, s.interviewBase ?? undefined), result: gradeInWords(grade, kindLabel) });
    } catch (e) {
      setStatus({ kind: 'error', message: e instanceof Error ? e.message : String(e) });
    }
  };
  const allowed = interview.kinds.length > 0 ? interview.kinds.map(kindLabel).join(', ') : 'every kind that applies';
  const prompt = designToGrade(composed, interviewBase);
  const ownFaults = prompt.faults.map((f) => describeFault(f, prompt)).join('; ');
  const grown = interviewBase ? promptFaultsFor(composed, interviewBase).grown : [];
  const grownWords = grown.length > 0 ? ` (grown by your longer lease, so each keeps its place relative to the expiry of the prompt's ${fmtTime(interviewBase!.lease.ttlMs)} one: ${grown.join(', ')})` : '';
  const more = `${interview.maxFaults} fault${interview.maxFaults === 1 ? '' : 's'} (${allowed})`;

  return (
    <section className="panel check-design" aria-label="Check my design" data-testid="check-design">
      <div className="check-head">
        <h2>Check my design</h2>
        <span className="timer" aria-label={`Time since the interview opened: ${mmss(elapsed)}`} data-testid="interview-timer">Time {mmss(elapsed)}</span>
      </div>
      <p className="small" data-testid="check-design-scope">
        {ownFaults
          ? <>Choose a mechanism on the left, then check it. The prompt's own faults ({ownFaults}) happen in every schedule{grownWords}; the fault search adds every placement of up to {more} on top, and answers with the shortest schedule that breaks an invariant, or that there is none.</>
          : <>Choose a mechanism on the left, then check it: the fault search tries every placement of up to {more} and answers with the shortest schedule that breaks an invariant, or that there is none.</>}
      </p>
      <p><button type="button" className="primary" disabled={status.kind === 'busy'} onClick={() => void check()} data-testid="check-my-design">Check my design</button></p>
      <div role="status" aria-live="polite" data-testid="check-result">
        {status.kind === 'busy' && <p className="small">Searching…</p>}
        {status.kind === 'error' && <p className="error">The search failed: {status.message}</p>}
        {status.kind === 'done' && (status.grade.safe
          ? <p className="explore-safe">{gradeInWords(status.grade, kindLabel)}</p>
          : (
            <>
              <p className="explore-found">{gradeInWords(status.grade, kindLabel)}</p>
              <p><button type="button" onClick={() => { if (!status.grade.safe) openCounterexample(store, status.grade.counterexample); }}>Replay this schedule</button></p>
            </>
          ))}
      </div>
      {transcript.length > 0 && (
        <>
          <h3>What you tried</h3>
          <ol className="transcript" data-testid="transcript">
            {transcript.map((t, i) => <li key={i}><span className="mono">{mmss(t.atMs)}</span> {t.design} — {t.result}</li>)}
          </ol>
        </>
      )}
    </section>
  );
}
