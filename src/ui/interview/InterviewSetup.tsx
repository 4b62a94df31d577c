/**
 * "Interview: two links from this scenario" (outside an interview, never to a candidate): the
 * disclosure, and what was chosen and made so far (kept while it is closed). Its body
 * (`InterviewSetupForm`, ./InterviewPanel.tsx, with the fault search) is its own chunk
 * (../lazyViews.ts), mounted when the disclosure is opened.
 */
import { Suspense, useState } from 'react';
import { useLockscope, useVisibility } from '../store';
import { InterviewSetupForm } from '../lazyViews';
import type { ExploreEnv } from '../explore/labels';
import type { Grade, InterviewLinks, PassingKinds } from './kit';

/** The model answer failing the grading the links were made with: its counterexample, and the kinds it withstands. */
export interface ModelFailure {
  readonly grade: Grade;
  readonly passing: PassingKinds;
}

/**
 * The form's state: faults per schedule, the kinds chosen (null: every kind that applies), the
 * model answer and rubric as typed (null: the defaults, ./kit.ts), and the last "Make the links".
 */
export interface InterviewSetupState {
  readonly maxFaults: number;
  readonly chosen: readonly string[] | null;
  readonly answer: string | null;
  readonly rubric: string | null;
  readonly status: { kind: 'idle' } | { kind: 'busy' } | { kind: 'done'; links: InterviewLinks; kinds: readonly string[]; maxFaults: number; modelFails?: ModelFailure } | { kind: 'error'; message: string };
}

const FIRST: InterviewSetupState = { maxFaults: 1, chosen: null, answer: null, rubric: null, status: { kind: 'idle' } };

/** Make two interview links from the scenario on screen (shown outside an interview, never to a candidate). `env`: the search's test seam. */
export function InterviewSetup({ env }: { env?: ExploreEnv }) {
  const { showAnswer } = useVisibility();
  const interview = useLockscope((s) => s.interview);
  const [open, setOpen] = useState(false);
  const [form, setForm] = useState<InterviewSetupState>(FIRST);
  if (!showAnswer || interview !== null) return null;
  return (
    <details className="panel interview-setup" open={open} onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>Interview: two links from this scenario</summary>
      {open && (
        <Suspense fallback={<p className="small muted" role="status">Loading…</p>}>
          <InterviewSetupForm env={env} form={form} setForm={setForm} />
        </Suspense>
      )}
    </details>
  );
}
