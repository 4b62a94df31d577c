// @vitest-environment jsdom
/**
 * The candidate's link, opened as a new user would: no hint of the answer anywhere in the page's
 * text, for every preset, in the simulator and the editor (the preset's fix, "with the fix", the
 * mechanism hints, the verdict words).
 */
import { act } from 'react';
import { render, cleanup, fireEvent, screen } from '@testing-library/react';
import { Catalogue } from '../catalogue/Catalogue';
import { HelpButton } from '../help/HelpDialog';
import { App } from '../App';
import { createLockscopeStore, LockscopeProvider } from '../store';
import { hashOf } from '../url/urlState';
import { relevantSwitches, switchHint } from '../mechanism/switches';
import { PRESETS, type Scenario } from '../../sim';

globalThis.ResizeObserver ??= class { observe() {} unobserve() {} disconnect() {} } as unknown as typeof ResizeObserver;

const candidate = { role: 'candidate' as const, kinds: [], maxFaults: 2, notes: null };
const interviewer = { role: 'interviewer' as const, kinds: [], maxFaults: 2, notes: { t: 'Secret_token_123456', a: 'MODEL-ANSWER-TEXT', q: [{ q: 'FOLLOW-UP-TEXT', x: [] }], r: ['RUBRIC-TEXT'] } };

async function pageText(composed: Scenario, view: 'simulate' | 'edit' | 'compare', iv: typeof candidate | typeof interviewer): Promise<string> {
  window.location.hash = hashOf({ composed, variant: 'without', view, cursorIndex: 3, compareTarget: { kind: 'otherVariant' }, interview: iv });
  const store = createLockscopeStore();
  const r = render(<LockscopeProvider store={store}><App /></LockscopeProvider>);
  await act(async () => { await new Promise((res) => setTimeout(res, 50)); });
  const text = document.body.textContent ?? '';
  r.unmount();
  cleanup();
  return text;
}

/** The answer's words: verdict words, the fix, and each switch's hint (except one that is the prompt's own words, e.g. "waits for ever"). */
function answerWords(s: Scenario, fix: string, prompt = s.description): string[] {
  return ['Violated', 'Held:', 'The fix', 'with the fix', 'With the fix', fix, ...relevantSwitches(s).map((d) => switchHint(s, d)).filter((h) => !prompt.includes(h))];
}

describe("the candidate's page", () => {
  afterEach(() => { window.location.hash = ''; localStorage.clear(); });

  it.each(PRESETS.map((p) => [p.id, p] as const))('%s: no answer text in the simulator', async (_id, p) => {
    const text = await pageText(p.withoutFix, 'simulate', candidate);
    expect(text).toContain(p.withoutFix.title);
    for (const w of answerWords(p.withoutFix, p.fix)) expect(text).not.toContain(w);
  });

  it.each(PRESETS.map((p) => [p.id, p] as const))('%s: no answer text with the preset itself loaded in interview mode (its fix known to the app)', async (_id, p) => {
    window.location.hash = '';
    const store = createLockscopeStore();
    store.getState().loadPreset(p.id, 'without');
    store.getState().setInterview(candidate);
    const r = render(<LockscopeProvider store={store}><App /></LockscopeProvider>);
    await act(async () => { await new Promise((res) => setTimeout(res, 50)); });
    const text = document.body.textContent ?? '';
    r.unmount();
    expect(text).toContain(p.withoutFix.title);
    for (const w of answerWords(p.withoutFix, p.fix, `${p.withoutFix.description} ${p.situation}`)) expect(text).not.toContain(w);
    expect(text).not.toContain('Break my design');
  });

  it('no answer text in the editor, nor where the link asks for the compare view', async () => {
    const p = PRESETS.find((x) => x.id === 'unsafe-release') ?? PRESETS[0]!;
    for (const view of ['edit', 'compare'] as const) {
      const text = await pageText(p.withoutFix, view, candidate);
      for (const w of answerWords(p.withoutFix, p.fix)) expect(text).not.toContain(w);
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
