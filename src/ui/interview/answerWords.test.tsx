// @vitest-environment jsdom
/**
 * Issue 12, "one switch, kept in the link, hides every hint of the answer": words that judge the
 * design or name the preset's fix, found in a review of the candidate's view, never reach the
 * candidate — in the switch labels and options, the editor, the glossary of the replies shown
 * (the log's tooltips and Help), the invariant text (the prompt, the verdict's "Checking:", the
 * editor's list) and the sentences of both variants' runs as the candidate reads them (their
 * facts). interviewMode.test.tsx checks the preset's own phrases; this checks a fixed vocabulary,
 * since those phrases were worded elsewhere (a label, a glossary entry) and slipped through.
 */
import { act } from 'react';
import { render, cleanup } from '@testing-library/react';
import { App } from '../App';
import { HelpContent } from '../help/HelpContent';
import { createLockscopeStore, LockscopeProvider, narrationShown } from '../store';
import { hashOf } from '../url/urlState';
import { relevantSwitches, switchOptions } from '../mechanism/switches';
import { explainReply } from '../glossary/replies';
import { invariantText } from '../verdict/invariantText';
import { INVARIANT_TEXT, PRESETS, runScenario, type Invariant, type Preset, type Scenario } from '../../sim';
import { candidatePrompt } from '../../share/candidatePrompt';

globalThis.ResizeObserver ??= class { observe() {} unobserve() {} disconnect() {} } as unknown as typeof ResizeObserver;

const candidate = { role: 'candidate' as const, kinds: [], maxFaults: 2, notes: null };

/** Words that judge the design rather than say what it does: never shown to the candidate, whatever the preset. */
const JUDGEMENTS = ['unsafe', 'a bug', 'not its own', 'is safe'];

/**
 * The mechanism words of `p`'s fix that its starting design does not already use: naming one in
 * a sentence, a reply's meaning or the invariant tells the answer. (A switch or an option offering
 * it is the design space, every option alike, so the controls are checked for JUDGEMENTS only.)
 */
function fixWords(p: Preset): string[] {
  const s = p.withoutFix;
  const w: string[] = [];
  if (p.fix.includes('compare-and-delete') && s.mechanism.release !== 'compare-and-delete') w.push('compare-and-delete');
  if (p.fix.includes('compare-and-extend') && s.mechanism.renewal !== 'compare-and-extend') w.push('compare-and-extend');
  if (p.fix.includes('fencing token') && !s.mechanism.fencing) w.push('fencing token');
  return w;
}

/** The presets' fix words are found at all (else the property below would check nothing of them). */
it('the vocabulary covers the fixes the review named', () => {
  expect(fixWords(PRESETS.find((p) => p.id === 'unsafe-release')!)).toContain('compare-and-delete');
  expect(fixWords(PRESETS.find((p) => p.id === 'export-lease-expiry')!)).toContain('fencing token');
  expect(fixWords(PRESETS.find((p) => p.id === 'pexpire-renewal')!)).toContain('compare-and-extend');
});

/** Waits for the low-priority panels (the event log with its tooltips) after the first render. */
async function settle(withLog: boolean): Promise<void> {
  await act(async () => { await new Promise((res) => setTimeout(res, 50)); });
  if (withLog) await vi.waitFor(() => expect(document.querySelectorAll('.log-narration').length).toBeGreaterThan(0), { timeout: 10_000 });
  await act(async () => { await new Promise((res) => setTimeout(res, 20)); });
}

/** The candidate's page for `s` in `view`: its whole text, and the text of the parts that state the invariants. */
async function candidatePage(s: Scenario, view: 'simulate' | 'edit'): Promise<{ text: string; invariants: string }> {
  window.location.hash = hashOf({ composed: s, variant: 'without', view, cursorIndex: 3, compareTarget: { kind: 'otherVariant' }, interview: candidate });
  const store = createLockscopeStore();
  const r = render(<LockscopeProvider store={store}><App /></LockscopeProvider>);
  await settle(view === 'simulate');
  expect(store.getState().mode).toBe('interview');
  const text = document.body.textContent ?? '';
  const verdict = document.querySelector('[data-testid="verdict"]')?.closest('section')?.textContent ?? '';
  const list = document.querySelector('.invariant-list')?.textContent ?? '';
  r.unmount();
  cleanup();
  return { text, invariants: `${verdict}\n${list}` };
}

/** `text` holds none of `words`; `where` names the place in the failure. */
function expectNone(text: string, words: readonly string[], where: string): void {
  const t = text.toLowerCase();
  for (const w of words) {
    const at = t.indexOf(w.toLowerCase());
    expect(at < 0 ? null : `${where} says "${w}": …${text.slice(Math.max(0, at - 60), at + w.length + 30)}…`).toBeNull();
  }
}

describe("the candidate's view holds no word that judges the design or names the fix", () => {
  afterEach(() => { window.location.hash = ''; localStorage.clear(); });

  it.each(PRESETS.map((p) => [p.id, p] as const))('%s', async (_id, p) => {
    const fix = fixWords(p);
    const s = p.withoutFix;
    // The controls: labels, short labels and options of every switch shown.
    for (const d of relevantSwitches(s)) expectNone([d.label, d.short ?? '', ...switchOptions(d, s).map((o) => o.label)].join('\n'), JUDGEMENTS, `switch ${d.id}`);
    // The invariants as the candidate reads them.
    const prompt = candidatePrompt(s).description;
    expectNone(prompt, [...JUDGEMENTS, ...fix], 'the prompt');
    const kinds = Object.keys(INVARIANT_TEXT) as Invariant['kind'][];
    expectNone(kinds.map((k) => invariantText(k, false)).join('\n'), fix, 'an invariant\'s name');
    // Both variants' runs: each sentence as shown and each reply's meaning. The fix's own run may name
    // the mechanism the candidate chose; it never judges it.
    for (const [v, words] of [[p.withoutFix, [...JUDGEMENTS, ...fix]], [p.withFix, JUDGEMENTS]] as const) {
      for (const e of runScenario(v).events) {
        expectNone(narrationShown(e, true), words, `event ${e.id} of ${v === p.withFix ? 'the fixed' : 'the starting'} run`);
        if (e.reply !== undefined) expectNone(explainReply(e.reply, false) ?? '', words, `the meaning of reply "${e.reply}"`);
      }
    }
    // The pages themselves: the simulator (log with its reply tooltips, the mechanism panel, the
    // verdict's "Checking:") and the editor.
    const sim = await candidatePage(s, 'simulate');
    expectNone(sim.text, JUDGEMENTS, 'the simulator');
    expectNone(sim.invariants, fix, 'the verdict panel');
    const edit = await candidatePage(s, 'edit');
    expectNone(edit.text, JUDGEMENTS, 'the editor');
    expectNone(edit.invariants, fix, "the editor's invariants");
  });

  it("Help's glossary, in interview mode, names no mechanism (it is the same for every preset)", () => {
    const store = createLockscopeStore();
    store.getState().setInterview(candidate);
    const r = render(<LockscopeProvider store={store}><HelpContent topic="interview" /></LockscopeProvider>);
    const text = document.querySelector('.glossary')?.textContent ?? '';
    r.unmount();
    expect(text).toContain('(integer) 1 / 0');
    expectNone(text, [...JUDGEMENTS, 'compare-and-delete', 'compare-and-extend', 'fencing token'], "Help's glossary");
  });

  it('outside an interview the judgement and the mechanism stay, as hints', () => {
    expect(explainReply('(integer) 1')).toMatch(/compare-and-delete/);
    expect(explainReply('(integer) 1', false)).not.toMatch(/compare-and-delete/);
    expect(invariantText('noStaleTokenAccepted', true)).toMatch(/fencing token/);
    const p = PRESETS.find((x) => x.id === 'unsafe-release')!;
    const e = runScenario(p.withoutFix).events.find((x) => x.narration.includes('not its own'))!;
    expect(narrationShown(e, false)).toContain('not its own');
    expect(narrationShown(e, true)).toBe("A releases with plain DEL and deletes B's lease.");
  });
});
