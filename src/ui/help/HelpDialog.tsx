/**
 * Help, reachable from every view (the header's "Help" button): how to use the view it is opened
 * from (`helpTopic`: a lesson's steps in a lesson, the candidate's in an interview, …), what the
 * replies and codes in a trace mean, and "How faithful is the model?". A native modal <dialog>:
 * Esc closes it, focus returns to the button.
 */
import { Suspense, useEffect, useRef, useState } from 'react';
import { HelpContent } from '../lazyViews';
import { useLockscope } from '../store';
import { helpTopic } from './topic';

export { helpTopic, type HelpTopic } from './topic';

/** The header's Help button and its dialog (its content, ./HelpContent.tsx, is a chunk of its own). */
export function HelpButton() {
  const ref = useRef<HTMLDialogElement>(null);
  // The content exists only while open (the catalogue shows the model notes too: one copy of their ids at a time).
  const [open, setOpen] = useState(false);
  useEffect(() => {
    if (open && ref.current && !ref.current.open) ref.current.showModal?.();
  }, [open]);
  // Help describes the view it is opened from (a lesson's help is a lesson's, not an interview's).
  const topic = useLockscope((st) => helpTopic(st.view, st.mode));
  return (
    <>
      <button type="button" className="tab help-button" onClick={() => setOpen(true)} aria-haspopup="dialog">Help</button>
      <dialog ref={ref} className="help-dialog" aria-labelledby="help-title" onClose={() => setOpen(false)}>
        {open && <>
        <div className="help-head">
          <h2 id="help-title">Help</h2>
          <button type="button" onClick={() => ref.current?.close()}>Close (Esc)</button>
        </div>
        <Suspense fallback={<p className="small muted" role="status">Loading…</p>}>
          <HelpContent topic={topic} />
        </Suspense>
        </>}
      </dialog>
    </>
  );
}
