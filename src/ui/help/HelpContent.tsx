/**
 * The help dialog's content (./HelpDialog.tsx opens it): how to use the simulator, what the
 * replies and codes in a trace mean, and "How faithful is the model?".
 */
import { Suspense } from 'react';
import { SQLSTATES } from '../glossary/replies';
import { ModelNotes } from '../lazyViews';
import { useVisibility } from '../store';

const REPLIES: readonly (readonly [string, string])[] = [
  ['INSERT 0 1', 'one row inserted (the 0 is a legacy object id); INSERT 0 0: ON CONFLICT DO NOTHING skipped it'],
  ['SELECT 0 / SELECT 1', 'how many rows the query returned'],
  ['UPDATE 1', 'how many rows changed'],
  ['(void)', 'pg_advisory_lock returns nothing: it answers once the lock is held'],
  ['t / f', 'true / false: pg_try_advisory_lock got the lock or not; pg_advisory_unlock released one or not'],
  ['waits (…)', 'the statement is blocked behind the lock named; it goes on when that holder commits, rolls back or unlocks'],
  ['OK', 'Redis: the SET happened (NX: the key was free, now ours)'],
  ['(nil)', 'Redis: SET NX did nothing, the key exists (someone holds the lease)'],
  ['(integer) 1 / 0', 'Redis: DEL or the compare-and-delete/extend script acted (1) or found nothing of ours (0)'],
  ['(integer) 33', 'Redis INCR: the new fencing token'],
  ['409 Conflict', 'the destination refused a write with a stale fencing token'],
];

/** The sections of the help dialog. */
export function HelpContent() {
  // Interview mode: no word of the fix or the compare view (./store/visibility.ts).
  const { showAnswer } = useVisibility();
  return (
    <>
      <section aria-labelledby="help-use">
        <h3 id="help-use">Using Lockscope</h3>
        <ol>
          {showAnswer
            ? <li><strong>Pick a scenario</strong> in the header (or on the catalogue); "with the fix" loads its fixed variant.</li>
            : <li><strong>Choose a mechanism</strong> on the left, then <strong>Check my design</strong>: the fault search answers with the shortest schedule that breaks it, or that there is none.</li>}
          <li><strong>Scrub</strong>: drag the time axis, press ← / → to step event by event, or Play. The event log and "World at the cursor" follow.</li>
          <li><strong>Inject a fault</strong>: click a lane (or its name) and choose; drag a fault's marker to move it, or type its time in the Faults panel.</li>
          {showAnswer && <li><strong>Compare</strong>: the same faults without and with the fix, or with one switch flipped, side by side.</li>}
          {showAnswer && <li><strong>Break my design</strong> (under the timeline, and in Edit): the search tries every schedule of up to N faults and shows the shortest one that breaks the scenario, or says none does; open it in the simulator or replay it against another mechanism. A matrix shows which mechanism holds against which fault.</li>}
          {showAnswer && <li><strong>How often? (the odds)</strong> (below the log, lease scenarios): from the p50 and p99 of the pauses you see, the chance of a violation for each lease TTL.</li>}
          <li><strong>Bookmarks</strong> (left): mark the moment at the cursor with a short note; <kbd>[</kbd> / <kbd>]</kbd> step to the previous / next bookmark. The link keeps them.</li>
          {showAnswer && <li><strong>Present (workshop)…</strong> (under the bookmarks): a presenter window with notes and controls, and an audience window kept in step. Keys: → / ← step, [ / ] bookmarks, R reveal, B blank, V "what happens next?".</li>}
          {showAnswer && <li><strong>Guided lessons</strong> (on the catalogue page): from the invariant to recovery, each with a prediction, the reveal and an exercise graded by the fault search.</li>}
          <li><strong>Share</strong>: the address is the whole state; Copy link, or export JSON / the timeline as SVG or PNG.</li>
        </ol>
        <p>Hover a reply in the event log (or focus its row) to read what it means. Display (top right) has large type and the themes: Auto (follows the system), Light, Dark and Projector (high contrast, for the back of a room).</p>
      </section>
      <section aria-labelledby="help-replies">
        <h3 id="help-replies">Replies and codes</h3>
        <dl className="glossary">
          {REPLIES.map(([k, v]) => <div key={k}><dt><code>{k}</code></dt><dd>{v}</dd></div>)}
          {Object.entries(SQLSTATES).map(([k, v]) => <div key={k}><dt><code>ERROR {k}</code></dt><dd>{v}</dd></div>)}
        </dl>
      </section>
      <Suspense fallback={<p className="small muted" role="status">Loading…</p>}>
        <ModelNotes />
      </Suspense>
    </>
  );
}
