/**
 * The help dialog's content (./HelpDialog.tsx opens it): how to use the view it is opened from, what the
 * replies and codes in a trace mean, and "How faithful is the model?".
 */
import { Suspense } from 'react';
import { SQLSTATES } from '../glossary/replies';
import { ModelNotes } from '../lazyViews';
import { useVisibility } from '../store';
import type { HelpTopic } from './topic';

/**
 * The replies' glossary: what each reply means, and (third, optional) what a mechanism makes of
 * it — shown only with the hints (not to an interview's candidate: it names mechanisms).
 */
const REPLIES: readonly (readonly [string, string, string?])[] = [
  ['INSERT 0 1', 'one row inserted (the 0 is a legacy object id); INSERT 0 0: ON CONFLICT DO NOTHING skipped it'],
  ['SELECT 0 / SELECT 1', 'how many rows the query returned'],
  ['UPDATE 1', 'how many rows changed'],
  ['(void)', 'pg_advisory_lock returns nothing: it answers once the lock is held'],
  ['t / f', 'true / false: pg_try_advisory_lock got the lock or not; pg_advisory_unlock released one or not'],
  ['waits (…)', 'the statement is blocked behind the lock named; it goes on when that holder commits, rolls back or unlocks'],
  ['OK', 'Redis: the SET happened (NX: the key was free, now ours)'],
  ['(nil)', 'Redis: SET NX did nothing, the key exists (someone holds the lease)'],
  ['(integer) 1 / 0', 'Redis: DEL removed one key (1) or found none (0); a script sent with EVAL returned 1 or 0', 'the compare-and-delete/extend script acted (1) or found nothing of ours (0)'],
  ['(integer) 33', 'Redis INCR: the counter\'s new value', 'the new fencing token'],
  ['409 Conflict', 'the destination refused the write', 'a stale fencing token'],
];

const USE_TITLE: Readonly<Record<HelpTopic, string>> = {
  interview: 'Using the interview',
  lesson: 'Using a guided lesson',
  lessons: 'Using the guided lessons',
  catalogue: 'Using the catalogue',
  simulate: 'Using the simulator',
  compare: 'Using the compare view',
  edit: 'Using the editor',
  workshop: 'Using the workshop windows',
};

const SCRUB = <li key="scrub"><strong>Scrub</strong>: drag the time axis, press ← / → to step event by event, or Play. The event log and "World at the cursor" follow.</li>;
const INJECT = <li key="inject"><strong>Inject a fault</strong>: click a lane (or its name) and choose; drag a fault's marker to move it, or type its time in the Faults panel.</li>;
const SHARE = <li key="share"><strong>Share</strong>: the address is the whole state; Copy link, or export JSON / the timeline as SVG or PNG.</li>;

/** The steps of the view Help was opened from. */
function UsingThisView({ topic, showAnswer }: { topic: HelpTopic; showAnswer: boolean }) {
  switch (topic) {
    case 'interview':
      return (
        <ol data-testid="help-topic" data-topic={topic}>
          <li><strong>Choose a mechanism</strong> on the left, then <strong>Check my design</strong>: the prompt's own faults happen in every schedule, the fault search adds up to the number the interviewer allowed, and answers with the shortest schedule that breaks your design, or that there is none.</li>
          {SCRUB}{INJECT}
          <li><strong>Bookmarks</strong> (left): mark the moment at the cursor with a short note; <kbd>[</kbd> / <kbd>]</kbd> step to the previous / next bookmark. The link keeps them.</li>
          {SHARE}
        </ol>
      );
    case 'lesson':
      return (
        <ol data-testid="help-topic" data-topic={topic}>
          <li><strong>Read the question and the setup.</strong> The timeline shows the run one event at a time (← / → or Play); what happens after the cursor and the verdict stay hidden until the reveal.</li>
          <li><strong>Predict</strong>: tick every fault schedule that does what the question asks — breaks the invariants it names, or, in a lesson whose scenario checks none, repeats the effect — maybe all, maybe none — then <strong>Check my prediction</strong>.</li>
          <li><strong>Reveal what happens</strong>: what each schedule does, with the events each broken invariant (or repeat) cites; “Show … on the timeline” runs it.</li>
          <li><strong>Exercise</strong>: change the mechanism in the Mechanism panel, then <strong>Check my design</strong>: the fault search tries every schedule of the lesson's faults and answers with the shortest one that breaks your design, or that none does.</li>
          <li><strong>Another question</strong> draws new schedules. Lessons done are kept on this device; the link keeps the lesson, its question and its stage.</li>
        </ol>
      );
    case 'lessons':
      return (
        <ol data-testid="help-topic" data-topic={topic}>
          <li><strong>Follow the path</strong>: from the invariant to recovery, each lesson one step stronger than the last. Start (or Again) opens a lesson.</li>
          <li>Each lesson asks a question, lets you <strong>predict</strong> which fault schedules break its design, <strong>reveals</strong> what the simulation shows, and ends with one <strong>exercise</strong> graded by the fault search.</li>
          <li>Progress is kept on this device.</li>
        </ol>
      );
    case 'catalogue':
      return (
        <ol data-testid="help-topic" data-topic={topic}>
          <li><strong>Pick a scenario</strong>: each card says what breaks without its fix and what the fix is{showAnswer ? '; "with the fix" opens its fixed variant' : ''}.</li>
          {showAnswer && <li><strong>Guided lessons</strong>: from the invariant to recovery, each with a prediction, the reveal and an exercise graded by the fault search.</li>}
          <li><strong>How faithful is the model?</strong> (below): what the model leaves out on purpose, and which runs were replayed against real servers.</li>
        </ol>
      );
    case 'compare':
      return (
        <ol data-testid="help-topic" data-topic={topic}>
          <li><strong>Pick the right-hand side</strong>: the preset with (or without) its fix, or the left with one switch flipped. What differs between the sides — switches, the job's steps, settings — is listed above them, and where the runs first differ.</li>
          {SCRUB}
          <li><strong>Inject a fault</strong> on either timeline: it applies to both sides.</li>
          {SHARE}
        </ol>
      );
    case 'edit':
      return (
        <ol data-testid="help-topic" data-topic={topic}>
          <li><strong>Edit the scenario</strong> in the form or as JSON: a field that breaks a rule says why, by its path; the last valid scenario keeps running.</li>
          {showAnswer && <li><strong>Break my design</strong>: the search tries every schedule of up to N faults and shows the shortest one that breaks the scenario, or says none does.</li>}
          {SHARE}
        </ol>
      );
    case 'workshop':
      return (
        <ol data-testid="help-topic" data-topic={topic}>
          <li><strong>Presenter</strong>: notes and controls; the audience window follows. Keys: → / ← step, [ / ] bookmarks, R reveal, B blank, V "what happens next?".</li>
          {SCRUB}
        </ol>
      );
    case 'simulate':
      return (
        <ol data-testid="help-topic" data-topic={topic}>
          <li><strong>Pick a scenario</strong> in the header (or on the catalogue){showAnswer ? '; "with the fix" loads its fixed variant' : ''}.</li>
          {SCRUB}{INJECT}
          {showAnswer && <li><strong>Compare</strong>: the same faults without and with the fix, or with one switch flipped, side by side.</li>}
          {showAnswer && <li><strong>Break my design</strong> (under the timeline, and in Edit): the search tries every schedule of up to N faults and shows the shortest one that breaks the scenario, or says none does; open it in the simulator or replay it against another mechanism. A matrix shows which mechanism holds against which fault.</li>}
          {showAnswer && <li><strong>How often? (the odds)</strong> (below the log, lease scenarios): from the p50 and p99 of the pauses you see, the chance of a violation for each lease TTL.</li>}
          <li><strong>Bookmarks</strong> (left): mark the moment at the cursor with a short note; <kbd>[</kbd> / <kbd>]</kbd> step to the previous / next bookmark. The link keeps them.</li>
          {showAnswer && <li><strong>Present (workshop)…</strong> (under the bookmarks): a presenter window with notes and controls, and an audience window kept in step. Keys: → / ← step, [ / ] bookmarks, R reveal, B blank, V "what happens next?".</li>}
          {SHARE}
        </ol>
      );
  }
}

/** The sections of the help dialog, "Using …" for the view it was opened from (`topic`). */
export function HelpContent({ topic }: { topic: HelpTopic }) {
  // Interview mode: no word of the fix or the compare view (./store/visibility.ts).
  const { showAnswer, showHints } = useVisibility();
  return (
    <>
      <section aria-labelledby="help-use">
        <h3 id="help-use">{USE_TITLE[topic]}</h3>
        <UsingThisView topic={topic} showAnswer={showAnswer} />
        <p>{topic === 'simulate' || topic === 'interview' || topic === 'workshop' ? 'Hover a reply in the event log (or focus its row) to read what it means. ' : ''}Display (top right) has large type and the themes: Auto (follows the system), Light, Dark and Projector (high contrast, for the back of a room).</p>
      </section>
      <section aria-labelledby="help-replies">
        <h3 id="help-replies">Replies and codes</h3>
        <dl className="glossary">
          {REPLIES.map(([k, v, hint]) => <div key={k}><dt><code>{k}</code></dt><dd>{hint && showHints ? `${v}: ${hint}` : v}</dd></div>)}
          {Object.entries(SQLSTATES).map(([k, v]) => <div key={k}><dt><code>ERROR {k}</code></dt><dd>{v}</dd></div>)}
        </dl>
      </section>
      <Suspense fallback={<p className="small muted" role="status">Loading…</p>}>
        <ModelNotes />
      </Suspense>
    </>
  );
}
