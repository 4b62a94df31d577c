/**
 * The guided lessons (./lessons.ts): the path with the learner's progress (`LessonPath`, `#/lessons`)
 * and one lesson (`LessonView`, its state a link: `l` = lesson, question seed, stage, picks).
 * A lesson: the question and the scenario; a prediction ("which of these fault schedules breaks
 * this design?", drawn from the fault search by ./question.ts, checked); the reveal with the events
 * each violation cites; one exercise ("make it hold with the weakest mechanism") graded by the
 * fault search as an interview grades a design (../interview/kit.ts `gradeDesign`). Progress is
 * kept on this device (./progress.ts). Every control is a button, checkbox or select: a lesson can
 * be done with the keyboard alone. Until the reveal nothing states the outcome: the lesson's own
 * title and setup stand in for the catalogue's (which tell what breaks), and the view's visibility
 * hides the verdict, the findings and the events after the cursor (../store/visibility.ts).
 */
import { useEffect, useRef, useState } from 'react';
import { findPreset, type Scenario } from '../../sim';
import { withoutFaults, withSchedule } from '../../sim/search/search';
import { indexOfEvent, useLockscope, useLockscopeStore, useRun } from '../store';
import type { LessonState, LockscopeState } from '../store/types';
import { deriveRun } from '../store/derive';
import { uniqueEditKey } from '../store/scenarioSlice';
import { Timeline } from '../timeline/Timeline';
import { Transport } from '../timeline/Transport';
import { MechanismPanel } from '../mechanism/MechanismPanel';
import { SWITCHES } from '../mechanism/switches';
import { fmtSeconds } from '../faults/faultCatalog';
import { defaultEnv, kindLabel, type ExploreEnv } from '../explore/labels';
import { findWith } from '../interview/InterviewPanel';
import { designInWords, gradeDesign, gradeInWords, needlessChoices, type Grade, type NeedlessChoice } from '../interview/kit';
import { LESSON_PATH, findLesson, lessonQuestion, nextLesson, type Lesson, type LessonId } from './lessons';
import { drawSeed, loadProgress, markDone, saveProgress, type Progress } from './progress';
import { answerLine, askFor, drawQuestion, isRightPick, optionMark, revealLine, type Question } from './question';

type Store = { getState(): LockscopeState };

/** Opens a lesson at its first stage with a new question (the seed counts the questions drawn on this device). */
export function openLesson(store: Store, id: LessonId): void {
  const lesson = findLesson(id);
  if (!lesson) return;
  const { progress, seed } = drawSeed(loadProgress(), id);
  saveProgress(progress);
  const s = store.getState();
  s.loadPreset(lesson.presetId, 'without');
  s.setLesson({ id, q: seed, st: 0 });
  s.setView('lesson');
  window.scrollTo?.(0, 0);
}

/** The path through the lessons, with what is done on this device. */
export function LessonPath() {
  const store = useLockscopeStore();
  const [progress] = useState<Progress>(() => loadProgress());
  const nextUp = LESSON_PATH.find((l) => !progress.done.includes(l.id));
  return (
    <main className="lessons" id="main" tabIndex={-1}>
      <h1>Lessons</h1>
      <p>A path through the catalogue: start from the invariant, then the weakest mechanism that enforces it. Each lesson asks a question, lets you predict, reveals what the simulation shows, and ends with one exercise graded by the fault search. Progress is kept on this device.</p>
      <p className="small" data-testid="lesson-progress">{progress.done.length} of {LESSON_PATH.length} lessons done.</p>
      <ol className="lesson-path">
        {LESSON_PATH.map((l, i) => {
          const done = progress.done.includes(l.id);
          return (
            <li key={l.id} className={done ? 'done' : undefined}>
              <span className="lesson-step">{i + 1}. {l.step}</span>
              <span className="small muted"> · {l.title}</span>
              {done && <span className="lesson-done"> ✓ done</span>}
              <button type="button" onClick={() => openLesson(store, l.id)} aria-label={`${done ? 'Again' : l === nextUp ? 'Start' : 'Open'}: lesson ${i + 1}, ${l.step}`} data-testid={`lesson-open-${l.id}`}>{done ? 'Again' : l === nextUp ? 'Start' : 'Open'}</button>
            </li>
          );
        })}
      </ol>
    </main>
  );
}

/** Focuses the element when `when` becomes true (a stage appears: keyboard users land on it). */
function useFocusOn<T extends HTMLElement>(key: unknown): React.RefObject<T | null> {
  const ref = useRef<T>(null);
  const first = useRef(true);
  useEffect(() => {
    if (first.current) { first.current = false; return; }
    ref.current?.focus();
  }, [key]);
  return ref;
}

/** One lesson (the store's `lesson`). */
export function LessonView({ env = defaultEnv }: { env?: ExploreEnv }) {
  const lesson = useLockscope((s) => s.lesson);
  const def = lesson ? findLesson(lesson.id) : undefined;
  if (!lesson || !def) return <main id="main" tabIndex={-1}><p>No lesson is open. <a href="#/lessons">The lessons</a></p></main>;
  return <LessonBody key={`${lesson.id}:${lesson.q}`} lesson={lesson} def={def} env={env} />;
}

function LessonBody({ lesson, def, env }: { lesson: LessonState; def: Lesson; env: ExploreEnv }) {
  const store = useLockscopeStore();
  const run = useRun();
  const cursorMs = useLockscope((s) => s.cursorMs);
  const cursorIndex = useLockscope((s) => s.cursorIndex);
  const preset = findPreset(def.presetId)!;
  const index = LESSON_PATH.indexOf(def);
  // One question: the one the prediction answers (the invariants the schedules' runs can break, or — none checked — whether they repeat the effect).
  const ask = askFor(withoutFaults(preset.withoutFix));
  const asked = lessonQuestion(def, ask);
  const [question, setQuestion] = useState<{ kind: 'busy' } | { kind: 'ready'; q: Question } | { kind: 'error'; message: string }>({ kind: 'busy' });
  const [picked, setPicked] = useState<readonly number[]>(lesson.a ?? []);
  const [grade, setGrade] = useState<{ kind: 'idle' } | { kind: 'busy' } | { kind: 'done'; grade: Grade; design: string; needless: readonly NeedlessChoice[]; anotherWay: boolean } | { kind: 'error'; message: string }>({ kind: 'idle' });
  const stageRef = useFocusOn<HTMLHeadingElement>(lesson.st);
  const gradeRef = useFocusOn<HTMLParagraphElement>(grade.kind);

  useEffect(() => {
    let live = true;
    drawQuestion(withoutFaults(preset.withoutFix), def.kinds, def.maxFaults, lesson.q, findWith(env)).then(
      (q) => live && setQuestion({ kind: 'ready', q }),
      (e: unknown) => live && setQuestion({ kind: 'error', message: e instanceof Error ? e.message : String(e) }),
    );
    return () => { live = false; };
  }, [preset, def, lesson.q, env]);

  const setStage = (st: number, extra: Partial<LessonState> = {}) => store.getState().setLesson({ ...lesson, ...extra, st });
  const q = question.kind === 'ready' ? question.q : null;
  const right = q !== null && lesson.a !== undefined && isRightPick(q, lesson.a);
  // Before the exercise a schedule is shown on the lesson's design (what the reveal describes); in
  // the exercise, on the learner's own design (their mechanism, TTL and steps kept), to try it there.
  const onOwn = lesson.st >= 3;
  const show = (faults: readonly Scenario['faults'][number][], firstCited: string | undefined) => {
    const s = store.getState();
    const design = onOwn ? withoutFaults(s.composed) : withoutFaults(preset.withoutFix);
    s.replaceScenario(withSchedule(design, faults), onOwn ? 'Lesson: a schedule on your design' : 'Lesson: showing a schedule', uniqueEditKey('lesson'));
    if (onOwn) return;
    if (firstCited) {
      const r = store.getState();
      const i = indexOfEvent(deriveAfter(r), firstCited);
      if (i >= 0) r.setCursorIndex(i);
    }
  };
  const check = async () => {
    setGrade({ kind: 'busy' });
    try {
      const design = store.getState().composed;
      const find = findWith(env);
      const g = await gradeDesign(design, def.kinds, def.maxFaults, find);
      // "The weakest mechanism": a safe design with a choice it did not need is not done yet.
      const needless = g.safe ? await needlessChoices(design, preset.withoutFix, def.kinds, def.maxFaults, find) : [];
      setGrade({ kind: 'done', grade: g, design: designInWords(design, preset.withoutFix), needless, anotherWay: g.safe && !withinCatalogueFix(design, preset.withFix, preset.withoutFix) });
      if (g.safe && needless.length === 0) saveProgress(markDone(loadProgress(), def.id));
    } catch (e) {
      setGrade({ kind: 'error', message: e instanceof Error ? e.message : String(e) });
    }
  };
  const another = () => {
    const { progress, seed } = drawSeed(loadProgress(), def.id);
    saveProgress(progress);
    // A new prediction is about the lesson's design again (the exercise's edits stay in the undo history).
    store.getState().loadPreset(def.presetId, 'without');
    store.getState().setLesson({ id: def.id, q: seed, st: 0 });
  };
  const next = nextLesson(def.id);

  return (
    <div className="lesson-grid">
      <main className="lesson-main" id="main" tabIndex={-1}>
        <p className="small"><a href="#/lessons" onClick={(e) => { e.preventDefault(); store.getState().setView('lessons'); }}>Lessons</a> › {index + 1} of {LESSON_PATH.length}: {def.step}</p>
        <h1>{def.step}: {def.title}</h1>
        <p className="lesson-question" data-testid="lesson-question"><strong>Question.</strong> {asked}</p>
        <p className="small" data-testid="lesson-setup">{def.setup}</p>
        <Transport />
        <Timeline run={run} label="Timeline" cursorMs={cursorMs} cursorIndex={cursorIndex} onCursorMs={(ms) => store.getState().setCursorMs(ms)} onEventId={(id) => store.getState().setCursorIndex(indexOfEvent(run, id))} />

        <section className="panel lesson-stage" aria-labelledby="lesson-predict">
          <h2 id="lesson-predict" tabIndex={-1} ref={lesson.st <= 1 ? stageRef : undefined}>Predict</h2>
          <p className="small" data-testid="lesson-predict-how">Answer the question: tick every schedule that does — maybe all, maybe none. Each runs the design as the lesson starts, its own faults set aside.</p>
          {question.kind === 'busy' && <p role="status">Drawing a question from the fault search…</p>}
          {question.kind === 'error' && <p className="error" role="alert">The question could not be drawn: {question.message}</p>}
          {q && (
            <fieldset className="lesson-options" data-testid="lesson-options" disabled={lesson.st >= 1}>
              <legend className="sr-only">{asked}</legend>
              {q.options.map((o, i) => (
                <label key={i} className={lesson.st >= 1 ? (o.hit === picked.includes(i) ? 'option right' : 'option wrong') : 'option'}>
                  <input type="checkbox" checked={picked.includes(i)} onChange={(e) => setPicked((p) => (e.target.checked ? [...p, i] : p.filter((x) => x !== i)))} data-testid={`lesson-option-${i}`} />
                  <span>{String.fromCharCode(65 + i)}. {o.words}</span>
                  {lesson.st >= 1 && <strong className="small"> — {optionMark(q.ask, o)}</strong>}
                </label>
              ))}
            </fieldset>
          )}
          {q && lesson.st === 0 && <button type="button" className="button primary" onClick={() => setStage(1, { a: [...picked] })} data-testid="lesson-check">Check my prediction</button>}
          {q && lesson.st >= 1 && (
            <p role="status" data-testid="lesson-verdict" className={right ? 'held-text' : 'bad-text'}>{right ? 'Right.' : 'Not quite.'} {answerLine(q)}</p>
          )}
          {q && lesson.st === 1 && <button type="button" onClick={() => setStage(2)} data-testid="lesson-reveal">Reveal what happens</button>}
          <button type="button" className="link" onClick={another} data-testid="lesson-another">Another question</button>
        </section>

        {q && lesson.st >= 2 && (
          <section className="panel lesson-stage" aria-labelledby="lesson-reveal-h" data-testid="lesson-reveal-panel">
            <h2 id="lesson-reveal-h" tabIndex={-1} ref={lesson.st === 2 ? stageRef : undefined}>Reveal: what each schedule does</h2>
            <p className="small" data-testid="lesson-catalogue"><strong>The catalogue's scenario, “{preset.title}”:</strong> {preset.situation}</p>
            <ol className="lesson-reveal">
              {q.options.map((o, i) => (
                <li key={i}>
                  <strong>{String.fromCharCode(65 + i)}. {o.words}:</strong> {revealLine(q.ask, o)}
                  {o.cited.length > 0 && (
                    <ul className="cited small">
                      {o.cited.map((c) => <li key={c.id}><span className="muted">{fmtSeconds(c.atMs)} · {c.actor} ·</span> {c.narration}</li>)}
                    </ul>
                  )}
                  <button type="button" className="link" onClick={() => show(o.faults, o.cited[0]?.id)}>{onOwn ? `Try ${String.fromCharCode(65 + i)} on your design` : `Show ${String.fromCharCode(65 + i)} on the timeline`}</button>
                </li>
              ))}
            </ol>
            {lesson.st === 2 && <button type="button" className="button primary" onClick={() => setStage(3)} data-testid="lesson-to-exercise">On to the exercise</button>}
          </section>
        )}

        {lesson.st >= 3 && (
          <section className="panel lesson-stage" aria-labelledby="lesson-exercise-h" data-testid="lesson-exercise">
            <h2 id="lesson-exercise-h" tabIndex={-1} ref={lesson.st === 3 ? stageRef : undefined}>Exercise</h2>
            <p>{def.exercise}</p>
            <p className="small">Change the mechanism (the panel on the right), then check: the fault search tries every schedule of ≤ {def.maxFaults} fault{def.maxFaults === 1 ? '' : 's'} of these kinds: {def.kinds.map(kindLabel).join(', ')}.</p>
            <button type="button" className="button primary" onClick={() => void check()} disabled={grade.kind === 'busy'} data-testid="lesson-grade">Check my design</button>
            {grade.kind === 'busy' && <p role="status">Searching…</p>}
            {grade.kind === 'error' && <p className="error" role="alert">{grade.message}</p>}
            {grade.kind === 'done' && (
              <div data-testid="lesson-grade-result">
                <p tabIndex={-1} ref={gradeRef} className={grade.grade.safe ? 'held-text' : 'bad-text'}><strong>{grade.grade.safe ? 'It holds.' : 'Not yet.'}</strong> {gradeInWords(grade.grade, kindLabel)} <span className="small muted">(Your design: {grade.design}.)</span></p>
                {grade.grade.safe && grade.needless.length > 0 && (
                  <p data-testid="lesson-needless"><strong>Stronger than it needs to be.</strong> Undone alone, each of these still holds against the same faults: {grade.needless.map((n) => n.text).join('; ')}. The exercise asks for the weakest mechanism: undo {grade.needless.length === 1 ? 'it' : 'one of them'} and check again. (It may still be worth keeping in production, to save work or as a second line of defence; the invariant does not need it.)</p>
                )}
                {grade.grade.safe && grade.needless.length === 0 && (
                  <>
                    <p data-testid="lesson-done">Lesson done.{grade.anotherWay ? <> <strong>You made it hold another way than the catalogue's fix</strong>, and against these faults it holds as well.</> : null} {def.takeaway} The catalogue's fix: {preset.fix}.</p>
                    {next
                      ? <button type="button" className="button primary" onClick={() => openLesson(store, next.id)} data-testid="lesson-next">Next lesson: {next.step}</button>
                      : <button type="button" className="button primary" onClick={() => store.getState().setView('lessons')} data-testid="lesson-next">Back to the lessons: the path is done</button>}
                  </>
                )}
              </div>
            )}
          </section>
        )}
      </main>
      <aside className="col-left lesson-side" aria-label="Mechanism">
        {lesson.st < 3 && <p className="small muted" data-testid="lesson-mechanism-locked">The design as the lesson starts: the prediction is about it. You change the mechanism in the exercise.</p>}
        {/* Locked until the exercise: a change here would make the timeline contradict the question. */}
        <fieldset className="lesson-mechanism" disabled={lesson.st < 3}>
          <legend className="sr-only">Mechanism{lesson.st < 3 ? ' (changed in the exercise)' : ''}</legend>
          <MechanismPanel />
        </fieldset>
      </aside>
    </div>
  );
}

/**
 * True when every mechanism switch the learner changed from the lesson's start (`start`) is one
 * the catalogue's fix (`fix`) changes too: their design is the catalogue's way, maybe with less.
 */
export function withinCatalogueFix(design: Scenario, fix: Scenario, start: Scenario): boolean {
  const changed = (s: Scenario) => new Set(SWITCHES.filter((d) => JSON.stringify(d.get(s)) !== JSON.stringify(d.get(start))).map((d) => d.id));
  const theirs = changed(design);
  const catalogue = changed(fix);
  return [...theirs].every((id) => catalogue.has(id));
}

/** The run on screen after an edit (the store's composed scenario). */
function deriveAfter(s: LockscopeState) {
  return deriveRun(s.composed);
}
