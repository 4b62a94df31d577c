// @vitest-environment jsdom
/**
 * The candidate's link, opened as a new user would: no hint of the answer anywhere in the page's
 * text, for every preset, in the simulator and the editor (the preset's fix, "with the fix", the
 * mechanism hints, the verdict words, the preset's titles and setup, the explanation part of the
 * run's sentences), nor in the exported image's title, the download file names and the bodies of
 * the scenario JSON and the transcript.
 */
import { act } from 'react';
import { render, cleanup, fireEvent, screen } from '@testing-library/react';
import { Catalogue } from '../catalogue/Catalogue';
import { HelpButton } from '../help/HelpDialog';
import { App } from '../App';
import { createLockscopeStore, LockscopeProvider } from '../store';
import { hashOf } from '../url/urlState';
import { relevantSwitches, switchHint } from '../mechanism/switches';
import { PRESETS, findPreset, renderSessionScript, renderTranscript, runScenario, type Preset, type Scenario } from '../../sim';
import { candidatePrompt } from '../../share/candidatePrompt';
import { exportNames, parseScenarioText, scenarioJson } from '../share/files';
import { candidateTranscript } from '../share/TranscriptExport';
import { neutralFenceCounter } from '../../share/candidatePrompt';
import { deriveRun } from '../store/derive';
import { visibilityOf } from '../store';
import { hintOf } from './hintOf';

globalThis.ResizeObserver ??= class { observe() {} unobserve() {} disconnect() {} } as unknown as typeof ResizeObserver;

const candidate = { role: 'candidate' as const, kinds: [], maxFaults: 2, notes: null };
const interviewer = { role: 'interviewer' as const, kinds: [], maxFaults: 2, notes: { t: 'Secret_token_123456', a: 'MODEL-ANSWER-TEXT', q: [{ q: 'FOLLOW-UP-TEXT', x: [] }], r: ['RUBRIC-TEXT'] } };

/**
 * Waits until the page has rendered what follows the edit's frame at low priority (the event
 * log, `useDeferredValue`): a fixed 50 ms missed it on a loaded machine, and the assertions on the
 * sentences' facts then failed for whichever preset came last.
 */
async function settle(withLog = true): Promise<void> {
  await act(async () => { await new Promise((res) => setTimeout(res, 50)); });
  if (withLog) await vi.waitFor(() => expect(document.querySelectorAll('.log-narration').length).toBeGreaterThan(0), { timeout: 10_000 });
  await act(async () => { await new Promise((res) => setTimeout(res, 20)); });
}

async function pageText(composed: Scenario, view: 'simulate' | 'edit' | 'compare', iv: typeof candidate | typeof interviewer): Promise<string> {
  window.location.hash = hashOf({ composed, variant: 'without', view, cursorIndex: 3, compareTarget: { kind: 'otherVariant' }, interview: iv });
  const store = createLockscopeStore();
  const r = render(<LockscopeProvider store={store}><App /></LockscopeProvider>);
  await settle(view !== 'edit');
  const text = document.body.textContent ?? '';
  r.unmount();
  cleanup();
  return text;
}


/**
 * A preset's answer phrases: the verdict words, the fix, the "with the fix" variant's label, the
 * preset's own titles, descriptions, situation and expected outcomes (they tell what breaks or
 * what is missing), each switch's hint (except one that is the prompt's own words, e.g. "waits for
 * ever"), and the explanation part of every sentence of both variants' runs.
 */
function answerPhrases(p: Preset, prompt: string): string[] {
  const s = p.withoutFix;
  const hints = [p.withoutFix, p.withFix].flatMap((v) => runScenario(v).events.map(hintOf)).filter((h): h is string => h !== null && h !== '');
  return [...new Set(['Violated', 'Held:', 'The fix', 'with the fix', 'With the fix', p.fix, p.title, p.withoutFix.title, p.withFix.title, p.withoutFix.description, p.withFix.description, p.situation, p.expected.withoutFix, p.expected.withFix,
    ...relevantSwitches(s).map((d) => switchHint(s, d)).filter((h) => !prompt.includes(h)), ...hints,
    // The trace hash is the preset's: on the page it would name the preset (and so its fix).
    runScenario(p.withoutFix).traceHash, runScenario(p.withFix).traceHash])];
}

/** A file name's words, as fileBase writes them. */
const slug = (t: string) => t.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');

/** What the candidate's exports are called, as the share panel names them. */
function exportsOf(store: ReturnType<typeof createLockscopeStore>): string[] {
  const st = store.getState();
  const n = exportNames(st.composed, deriveRun(st.composed).verdict.status, visibilityOf(st).showVerdict, !visibilityOf(st).showHints);
  return [n.imageTitle, n.svg, n.png, n.json];
}

/**
 * The bodies of the candidate's files, as the share panel writes them: the scenario JSON ("Export
 * JSON") and the transcript with each session's script ("Run it yourself").
 */
function fileBodiesOf(store: ReturnType<typeof createLockscopeStore>): { name: string; body: string }[] {
  const st = store.getState();
  const t = candidateTranscript(deriveRun(st.composed), !visibilityOf(st).showHints);
  return [
    { name: 'scenario JSON', body: scenarioJson(st.composed) },
    { name: 'transcript', body: renderTranscript(t) },
    ...t.sessions.map((x) => ({ name: `${x.id} script`, body: renderSessionScript(t, x.id) })),
  ];
}

/** The bodies hold no answer phrase, and the scenario file is the candidate's scenario (a fencing counter the run never reads is not prepared). */
function expectNoAnswerInFiles(p: Preset, files: readonly { name: string; body: string }[]): void {
  for (const w of [...answerPhrases(p, candidatePrompt(p.withoutFix).description), p.id]) for (const f of files) expect(f.body, `the ${f.name} holds "${w}"`).not.toContain(w);
  const json = parseScenarioText(files[0]!.body);
  expect(json.ok).toBe(true);
  if (json.ok) expect(json.scenario.lease).toEqual(neutralFenceCounter(p.withoutFix));
}

function expectNoAnswer(p: Preset, text: string, exported: readonly string[]): void {
  const prompt = candidatePrompt(p.withoutFix);
  for (const w of answerPhrases(p, prompt.description)) expect(text, `the page shows "${w}"`).not.toContain(w);
  for (const w of [...answerPhrases(p, prompt.description), p.id]) for (const x of exported) {
    expect(x, `an export is named with "${w}"`).not.toContain(w);
    if (slug(w).length > 6) expect(x, `an export's file name holds "${slug(w)}"`).not.toContain(slug(w));
  }
  // The candidate reads the prompt and what happened: the facts of the sentences are there.
  expect(text).toContain(prompt.title);
  for (const e of runScenario(p.withoutFix).events) if (e.fact !== undefined) expect(text).toContain(e.fact);
}

describe("the candidate's page", () => {
  afterEach(() => { window.location.hash = ''; localStorage.clear(); });

  it.each(PRESETS.map((p) => [p.id, p] as const))('%s: no answer in the page text, the exported image title or file names (the link opened)', async (_id, p) => {
    window.location.hash = hashOf({ composed: p.withoutFix, variant: 'without', view: 'simulate', cursorIndex: 3, compareTarget: { kind: 'otherVariant' }, interview: candidate });
    const store = createLockscopeStore();
    const r = render(<LockscopeProvider store={store}><App /></LockscopeProvider>);
    await settle();
    const text = document.body.textContent ?? '';
    const exported = exportsOf(store);
    r.unmount();
    cleanup();
    expect(store.getState().mode).toBe('interview');
    expectNoAnswer(p, text, exported);
    expectNoAnswerInFiles(p, fileBodiesOf(store));
  });

  it.each(PRESETS.map((p) => [p.id, p] as const))('%s: no answer with the preset itself loaded in interview mode (its fix known to the app)', async (_id, p) => {
    window.location.hash = '';
    const store = createLockscopeStore();
    store.getState().loadPreset(p.id, 'without');
    store.getState().setInterview(candidate);
    const r = render(<LockscopeProvider store={store}><App /></LockscopeProvider>);
    await settle();
    const text = document.body.textContent ?? '';
    const exported = exportsOf(store);
    r.unmount();
    expectNoAnswer(p, text, exported);
    expectNoAnswerInFiles(p, fileBodiesOf(store));
    expect(text).not.toContain('Break my design');
  });

  it('fenced-db-write: neither the title, the setup, the sentences nor the exports say the UPDATE lacks the fence condition (found by a newcomer)', async () => {
    const p = findPreset('fenced-db-write')!;
    window.location.hash = hashOf({ composed: p.withoutFix, variant: 'without', view: 'simulate', cursorIndex: 3, compareTarget: { kind: 'otherVariant' }, interview: candidate });
    const store = createLockscopeStore();
    const r = render(<LockscopeProvider store={store}><App /></LockscopeProvider>);
    await settle();
    const text = document.body.textContent ?? '';
    const exported = exportsOf(store).join(' ');
    r.unmount();
    for (const w of ['has no condition on the fence', 'does not check the fence', 'nothing in the UPDATE compares the tokens', 'overwrites the newer holder', 'fenced-db-write', 'late-update-overwrites']) {
      expect(text).not.toContain(w);
      expect(exported).not.toContain(w);
    }
    expect(text).toContain('B writes row 7 of documents and sets fence = 34 (UPDATE 1).');
  });

  it('no answer text in the editor, nor where the link asks for the compare view', async () => {
    const p = PRESETS.find((x) => x.id === 'unsafe-release') ?? PRESETS[0]!;
    for (const view of ['edit', 'compare'] as const) {
      const text = await pageText(p.withoutFix, view, candidate);
      for (const w of answerPhrases(p, candidatePrompt(p.withoutFix).description)) expect(text).not.toContain(w);
      expect(text).not.toContain('Break my design');
    }
  });

  it('the catalogue rendered in interview mode shows no verdict and no fix; Help names neither the fix nor the compare view', async () => {
    const store = createLockscopeStore();
    store.getState().setInterview(candidate);
    const r = render(<LockscopeProvider store={store}><Catalogue onOpen={() => {}} /><HelpButton /></LockscopeProvider>);
    fireEvent.click(screen.getByRole('button', { name: 'Help' }));
    const text = document.body.textContent ?? '';
    r.unmount();
    expect(text).toContain(PRESETS[0]!.title);
    expect(text).toContain('Check my design');
    for (const p of PRESETS) for (const w of ['Violated', 'Held', 'The fix', 'with the fix', 'With the fix', p.fix]) expect(text).not.toContain(w);
  });

  it("the interviewer's page shows the verdict, the fix and the hints", async () => {
    const p = PRESETS.find((x) => x.id === 'unsafe-release') ?? PRESETS[0]!;
    const text = await pageText(p.withoutFix, 'simulate', interviewer);
    expect(text).toMatch(/Violated|Held/);
    expect(text).toContain('with the fix');
    for (const d of relevantSwitches(p.withoutFix)) expect(text).toContain(switchHint(p.withoutFix, d));
  });
});
