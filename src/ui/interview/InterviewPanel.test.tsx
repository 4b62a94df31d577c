// @vitest-environment jsdom
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createLockscopeStore, deriveRun } from '../store';
import { renderIn } from '../store/testing';
import { inlineRunner } from '../explore/coordinator';
import type { ExploreEnv } from '../explore/labels';
import { findPreset } from '../../sim';
import { searchFaults } from '../../sim/search/search';
import { CheckDesign, designToGrade, InterviewerNotesPanel, modelWithPromptFaults } from './InterviewPanel';
import { InterviewSetup } from './InterviewSetup';

let t = 0;
const env: ExploreEnv = { runners: () => [inlineRunner()], now: () => (t += 1000) };
const preset = findPreset('export-lease-expiry')!;

describe('interview panels', () => {
  it('Check my design: the starting design breaks (schedule + invariant), the fixed one is safe; the transcript keeps both, in order', async () => {
    const user = userEvent.setup();
    const store = createLockscopeStore();
    store.getState().loadShared(preset.withoutFix, { view: 'simulate', interview: { role: 'candidate', kinds: ['pause'], maxFaults: 1, notes: null }, mode: 'interview' });
    renderIn(store, <CheckDesign env={env} />);
    await user.click(screen.getByTestId('check-my-design'));
    // The prompt's own pause happens in every schedule: the starting design breaks under it alone.
    expect(screen.getByTestId('check-design-scope')).toHaveTextContent(/The prompt's own faults \(Pause A .+\) happen in every schedule; the fault search adds every placement of up to 1 fault \(pause\) on top/);
    await waitFor(() => expect(screen.getByTestId('check-result')).toHaveTextContent(/^Broken by the prompt's own faults alone \(Pause A .+\)\. Invariant broken: /));
    store.getState().setScenario(preset.withFix);
    await user.click(screen.getByTestId('check-my-design'));
    await waitFor(() => expect(screen.getByTestId('check-result')).toHaveTextContent(/Safe against the prompt's own faults \(Pause A .+\) plus ≤ 1 fault of these kinds: pause\./), { timeout: 10_000 });
    const items = within(screen.getByTestId('transcript')).getAllByRole('listitem');
    expect(items).toHaveLength(2);
    expect(items[0]).toHaveTextContent(/the starting design — Broken by the prompt's own faults alone/);
    expect(items[1]).toHaveTextContent(/Fencing token.*: on.* — Safe against/);
    expect(items[1]).not.toHaveTextContent('Lock:');
    expect(screen.getByTestId('interview-timer')).toHaveTextContent(/Time \d+:\d\d/);
  });

  it("grades against the prompt's faults, not the Faults panel's: a candidate who deletes the pause is still graded with it", async () => {
    const user = userEvent.setup();
    const store = createLockscopeStore();
    store.getState().loadShared(preset.withoutFix, { view: 'simulate', interview: { role: 'candidate', kinds: ['pause'], maxFaults: 1, notes: null }, mode: 'interview' });
    renderIn(store, <CheckDesign env={env} />);
    store.getState().removeFault(0);
    expect(store.getState().composed.faults).toEqual([]);
    await user.click(screen.getByTestId('check-my-design'));
    await waitFor(() => expect(screen.getByTestId('check-result')).toHaveTextContent(/^Broken by the prompt's own faults alone \(Pause A /));
    // Replay puts the prompt's pause back on the timeline, and the change badge says so (it had said "no fault at all").
    await user.click(screen.getByRole('button', { name: 'Replay this schedule' }));
    expect(store.getState().composed.faults).toEqual(preset.withoutFix.faults);
    expect(store.getState().badge?.action).toMatch(/^Counterexample: the scenario's own faults alone \(Pause A .+\)$/);
  });

  it("designToGrade: the prompt's faults on the design on screen, unless the candidate's edits left them naming a step that is gone", () => {
    const prompt = findPreset('unsafe-release')!.withoutFix;
    const edited = { ...prompt, faults: [] };
    expect(designToGrade(edited, prompt).faults).toEqual(prompt.faults);
    expect(designToGrade(edited, null)).toBe(edited);
    const shorter = { ...edited, workers: edited.workers.map((w) => ({ ...w, steps: w.steps.slice(0, 1) })) };
    expect(designToGrade(shorter, prompt)).toBe(shorter);
  });

  it('modelWithPromptFaults: the fixed variant with the prompt\'s faults when the interviewer changed them and the workers are the same', () => {
    const p = findPreset('unsafe-release')!;
    expect(modelWithPromptFaults(p.withFix, p.withoutFix, p.withoutFix)).toBe(p.withFix);
    const changed = { ...p.withoutFix, faults: [{ kind: 'crash', worker: 'B', step: 1, phase: 'before', restartAfterMs: null }] } as typeof p.withoutFix;
    expect(modelWithPromptFaults(p.withFix, p.withoutFix, changed).faults).toEqual(changed.faults);
    const s = findPreset('session-lock-pool')!; // its variants differ in their workers: the fixed variant keeps its own faults
    expect(modelWithPromptFaults(s.withFix, s.withoutFix, { ...s.withoutFix, faults: [] })).toBe(s.withFix);
  });

  it("a follow-up about the model answer shows its schedule on the model answer (unsafe-release: compare-and-delete under a second pause), the starting design's on the starting design", async () => {
    const user = userEvent.setup();
    const p = findPreset('unsafe-release')!;
    const ce = searchFaults(p.withFix, { maxFaults: 1, kinds: ['pause'], keepOwnFaults: true }).counterexample!;
    const start = searchFaults(p.withoutFix, { maxFaults: 1, kinds: ['pause'], keepOwnFaults: true }).counterexample!;
    const store = createLockscopeStore();
    store.getState().loadPreset('unsafe-release', 'without');
    store.getState().setView('simulate');
    store.getState().setInterview({ role: 'interviewer', kinds: ['pause'], maxFaults: 1, notes: { t: 'a'.repeat(22), a: '', q: [{ q: 'Starting design …', x: [...start.scenario.faults] }, { q: 'Your design …', x: [...ce.scenario.faults], m: 1 }], r: [] } });
    renderIn(store, <InterviewerNotesPanel />);
    await user.click(screen.getByRole('button', { name: 'Show it on the model answer' }));
    expect(store.getState().composed.mechanism).toEqual(p.withFix.mechanism);
    expect(store.getState().composed.faults).toEqual(ce.scenario.faults);
    expect(deriveRun(store.getState().composed).verdict.held).toBe(false);
    await user.click(screen.getByRole('button', { name: 'Show this schedule' }));
    expect(store.getState().composed.mechanism).toEqual(p.withoutFix.mechanism);
    const run = deriveRun(store.getState().composed);
    expect(run.verdict.held).toBe(false);
    expect(run.events[store.getState().cursorIndex]?.id).toBe(run.verdict.violations[0]!.eventIds[0]);
  });

  it('is absent outside an interview; the setup is absent on the candidate side', () => {
    const store = createLockscopeStore();
    store.getState().loadPreset(preset.id, 'without');
    store.getState().setView('simulate');
    const r = renderIn(store, <><CheckDesign env={env} /><InterviewerNotesPanel /><InterviewSetup env={env} /></>);
    expect(screen.queryByTestId('check-design')).toBeNull();
    expect(screen.getByText('Interview: two links from this scenario')).toBeInTheDocument();
    r.unmount();
    store.getState().setInterview({ role: 'candidate', kinds: [], maxFaults: 1, notes: null });
    renderIn(store, <><CheckDesign env={env} /><InterviewerNotesPanel /><InterviewSetup env={env} /></>);
    expect(screen.getByTestId('check-design')).toBeInTheDocument();
    expect(screen.queryByTestId('interviewer-notes')).toBeNull();
    expect(screen.queryByText('Interview: two links from this scenario')).toBeNull();
  });

  it("makes two links; the interviewer's view shows the model answer, follow-ups and rubric", async () => {
    const user = userEvent.setup();
    const store = createLockscopeStore();
    store.getState().loadPreset(preset.id, 'without');
    store.getState().setView('simulate');
    renderIn(store, <><InterviewerNotesPanel /><InterviewSetup env={env} /></>);
    await user.click(screen.getByText('Interview: two links from this scenario'));
    // Enabled once the kinds the model answer withstands are known (the default allowed set).
    await waitFor(() => expect(screen.getByRole('button', { name: 'Make the links' })).toBeEnabled(), { timeout: 15_000 });
    await user.click(screen.getByRole('button', { name: 'Make the links' }));
    const cand = await screen.findByTestId('candidate-link', {}, { timeout: 30_000 });
    const intv = screen.getByTestId('interviewer-link');
    expect((cand as HTMLInputElement).value).not.toBe((intv as HTMLInputElement).value);
    await user.click(screen.getByRole('button', { name: "Open the interviewer's view here" }));
    const notes = await screen.findByTestId('interviewer-notes');
    expect(within(notes).getByTestId('model-answer')).toHaveTextContent(preset.fix.slice(1));
    expect(notes).toHaveTextContent(/Starting design, with /);
    expect(notes).toHaveTextContent('States the invariant');
    expect(store.getState().mode).toBe('explore');
    // A follow-up about the model answer shows its schedule on the model answer, not on the starting design.
    await user.click(within(notes).getAllByRole('button', { name: 'Show this schedule' })[0]!);
    expect(store.getState().composed.mechanism).toEqual(preset.withoutFix.mechanism);
    const run = deriveRun(store.getState().composed);
    expect(run.verdict.held).toBe(false);
    // The cursor is on the first event the verdict cites.
    expect(run.events[store.getState().cursorIndex]?.id).toBe(run.verdict.violations[0]!.eventIds[0]);
  }, 60_000);
});

describe("the interviewer's allowed faults and the model answer (found by a newcomer: unsafe-release's model answer failed its own grading)", () => {
  it('unsafe-release: the kinds start as those compare-and-delete withstands, pause left out with its schedule', async () => {
    const user = userEvent.setup();
    const store = createLockscopeStore();
    store.getState().loadPreset('unsafe-release', 'without');
    store.getState().setView('simulate');
    renderIn(store, <InterviewSetup env={env} />);
    await user.click(screen.getByText('Interview: two links from this scenario'));
    const note = await screen.findByTestId('default-kinds-note', {}, { timeout: 20_000 });
    expect(note).toHaveTextContent(/^Left out by default, since each breaks the model answer:pause: with Pause A for \d+ s before step \d \(\w+\), on top of the prompt's own faults, A and B were inside the critical section/);
    // On top of the prompt's own pause, an expiry or a DEL also lets B in: compare-and-delete is no fence.
    expect(note).toHaveTextContent(/lease expiry: with Expire lease:rebuild at .+, on top of the prompt's own faults, A and B were inside the critical section/);
    // Graded with the prompt's own pause kept, the starting design still breaks: the two stay apart.
    expect(note).not.toHaveTextContent('holds too');
    const kinds = within(screen.getByRole('group', { name: 'Fault kinds the grading allows' }));
    expect(kinds.getByRole('checkbox', { name: /pause/i })).not.toBeChecked();
    expect(kinds.getByRole('checkbox', { name: /crash/i })).toBeChecked();
    // Made with the defaults, the model answer passes: no warning.
    await user.click(screen.getByRole('button', { name: 'Make the links' }));
    await screen.findByTestId('candidate-link', {}, { timeout: 20_000 });
    expect(screen.queryByTestId('model-answer-fails')).toBeNull();
  }, 60_000);

  it('"Make the links" with pause allowed warns, naming the fault that breaks the model answer and the kinds it passes; one click allows those', async () => {
    const user = userEvent.setup();
    const store = createLockscopeStore();
    store.getState().loadPreset('unsafe-release', 'without');
    store.getState().setView('simulate');
    const r = renderIn(store, <InterviewSetup env={env} />);
    await user.click(screen.getByText('Interview: two links from this scenario'));
    await screen.findByTestId('default-kinds-note', {}, { timeout: 20_000 });
    await user.click(within(screen.getByRole('group', { name: 'Fault kinds the grading allows' })).getByRole('checkbox', { name: /pause/i }));
    await user.click(screen.getByRole('button', { name: 'Make the links' }));
    const warning = await screen.findByTestId('model-answer-fails', {}, { timeout: 20_000 });
    expect(warning).toHaveTextContent(/^The model answer fails this grading: with Pause A for \d+ s before step \d \(\w+\), on top of the prompt's own faults, it breaks: A and B were inside the critical section/);
    expect(warning).toHaveTextContent(/It passes against: (?!.*pause)/i);
    expect(screen.getByTestId('candidate-link')).toBeInTheDocument();
    await user.click(within(warning).getByRole('button', { name: 'Allow only these and make the links again' }));
    await waitFor(() => expect(screen.queryByTestId('model-answer-fails')).toBeNull(), { timeout: 20_000 });
    await screen.findByTestId('candidate-link', {}, { timeout: 20_000 });
    expect(within(screen.getByRole('group', { name: 'Fault kinds the grading allows' })).getByRole('checkbox', { name: /pause/i })).not.toBeChecked();
    r.unmount();
  }, 90_000);
});
