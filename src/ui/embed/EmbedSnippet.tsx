/**
 * The share panel's "Embed" section: the `<iframe>` snippet for the run on screen (the embed
 * link, `e=1`, at the cursor), to paste into a slide deck or a blog post, with a copy button.
 * Not offered in an interview (a candidate's design is not for publishing).
 */
import { useDeferredValue, useMemo, useRef, useState } from 'react';
import { useLockscope, useVisibility } from '../store';
import { embedHash, embedSnippet } from './embed';

/** The embed snippet, collapsed under "Embed" until opened. */
export function EmbedSnippet() {
  const composed = useDeferredValue(useLockscope((s) => s.composed));
  const variant = useDeferredValue(useLockscope((s) => s.variant));
  const cursorIndex = useDeferredValue(useLockscope((s) => s.cursorIndex));
  const cursorMs = useDeferredValue(useLockscope((s) => s.cursorMs));
  const mode = useLockscope((s) => s.mode);
  const largeType = useLockscope((s) => s.largeType);
  const { showAnswer } = useVisibility();
  const [open, setOpen] = useState(false);
  const [status, setStatus] = useState('');
  const ref = useRef<HTMLTextAreaElement>(null);
  const snippet = useMemo(() => {
    if (!open) return '';
    const src = `${window.location.origin}${window.location.pathname}${embedHash({ composed, variant, view: 'simulate', cursorIndex, cursorMs, compareTarget: { kind: 'otherVariant' }, mode, largeType })}`;
    return embedSnippet(src, composed.title);
  }, [open, composed, variant, cursorIndex, cursorMs, mode, largeType]);
  if (!showAnswer) return null;
  const onCopy = async () => {
    try {
      if (!navigator.clipboard?.writeText) throw new Error('no clipboard');
      await navigator.clipboard.writeText(snippet);
      setStatus('Copied the embed code.');
    } catch {
      ref.current?.focus();
      ref.current?.select();
      setStatus('Copying is blocked here. The code is selected: press Ctrl+C (⌘C on a Mac).');
    }
  };
  return (
    <details className="embed-snippet" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>Embed in a page or slide</summary>
      {open && (
        <>
          <label htmlFor="embed-code" className="small">Paste this into a blog post or a slide deck: the timeline, the verdict and the transport, sized to the frame.</label>
          <textarea id="embed-code" ref={ref} readOnly rows={4} value={snippet} onFocus={(e) => e.target.select()} data-testid="embed-code" />
          <button type="button" onClick={() => void onCopy()}>Copy embed code</button>
          <p className="small" role="status">{status}</p>
        </>
      )}
    </details>
  );
}
