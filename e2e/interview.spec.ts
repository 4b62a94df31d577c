import { readFileSync } from 'node:fs';
import { test, expect, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { lz, watchErrors } from './support';
import { findPreset, runScenario, type Preset } from '../src/sim';
import { candidatePrompt } from '../src/share/candidatePrompt';
import { hintOf } from '../src/ui/interview/hintOf';

const FIX = "fencing token (INCR) checked by the file store rejects A's stale upload";
/** Words that would give the answer away on the candidate's page. */
const ANSWER = ['Violated', 'Held', 'The fix', 'with the fix', 'With the fix', FIX, 'DUPLICATE', 'Break my design', 'How often?', 'from the preset', 'edited from'];

/** The Title text of an exported PNG (its iTXt chunk), or null. */
function pngTitle(png: Buffer): string | null {
  for (let at = 8; at + 8 <= png.length;) {
    const len = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    if (type === 'iTXt') {
      const data = png.subarray(at + 8, at + 8 + len);
      const key = data.subarray(0, data.indexOf(0)).toString('latin1');
      if (key === 'Title') {
        // keyword \0, compression flag, method, language \0, translated keyword \0, text
        let i = data.indexOf(0) + 3;
        i = data.indexOf(0, i) + 1;
        i = data.indexOf(0, i) + 1;
        return data.subarray(i).toString('utf8');
      }
    }
    at += 12 + len;
  }
  return null;
}


/** A preset's answer phrases: verdict words, the fix, its titles, setup and expected outcomes, and the explanation part of every sentence of its runs. */
function answerPhrases(p: Preset): string[] {
  const hints = [p.withoutFix, p.withFix].flatMap((v) => runScenario(v).events.map(hintOf)).filter((h): h is string => h !== null);
  return [...new Set([...ANSWER, p.fix, p.title, p.withoutFix.title, p.withFix.title, p.withoutFix.description, p.situation, p.expected.withoutFix, p.expected.withFix, ...hints])];
}
const slug = (t: string) => t.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');

async function makeLinks(page: Page, presetId = 'export-lease-expiry'): Promise<{ candidate: string; interviewer: string }> {
  await page.goto(`/#/sim/${presetId}`);
  await expect(page.getByTestId('verdict')).toContainText('Violated');
  await page.getByText('Interview: two links from this scenario').click();
  // Grade against pauses only (a short search).
  const group = page.getByRole('group', { name: 'Fault kinds the grading allows' });
  // Until only "pause" stays ticked (a re-render under load may land between two clicks).
  await expect(async () => {
    for (const box of await group.getByRole('checkbox').all()) {
      const label = (await box.evaluate((el) => el.parentElement?.textContent ?? '')).trim();
      if (label !== 'pause' && await box.isChecked()) await box.uncheck();
      if (label === 'pause' && !await box.isChecked()) await box.check();
    }
    await expect(group.getByRole('checkbox', { checked: true })).toHaveCount(1, { timeout: 1_000 });
  }).toPass({ timeout: 15_000 });
  await page.getByRole('button', { name: 'Make the links' }).click();
  const candidate = await page.getByTestId('candidate-link').inputValue({ timeout: 30_000 });
  const interviewer = await page.getByTestId('interviewer-link').inputValue();
  return { candidate, interviewer };
}

test("interview: the candidate's link shows no answer anywhere (page, HTML, exported SVG); Check my design answers; the interviewer's link shows the answer", async ({ page, context }) => {
  // Two fault searches and three pages on a shared 2-core machine: a hang guard, not a speed goal.
  test.setTimeout(150_000);
  const errors = watchErrors(page);
  const { candidate, interviewer } = await makeLinks(page);
  expect(candidate).not.toBe(interviewer);
  const stateOf = (url: string) => JSON.parse(lz.decompressFromEncodedURIComponent(new URLSearchParams(new URL(url).hash.slice(1)).get('s')!)) as Record<string, unknown>;
  const candState = stateOf(candidate);
  const intvState = stateOf(interviewer);
  expect(candState).toMatchObject({ i: 1, g: { k: ['pause'], n: 1 } });
  expect(candState.z).toBeUndefined();
  expect(candState.p).toBeUndefined();
  const token = (intvState.z as { t: string }).t;
  expect(token).toMatch(/^[A-Za-z0-9_-]{22}$/);
  expect(JSON.stringify(candState)).not.toContain(token);

  const cand = await context.newPage();
  const candErrors = watchErrors(cand);
  await cand.goto(candidate);
  await expect(cand.getByTestId('verdict')).toContainText('Verdict hidden');
  await expect(cand.getByRole('heading', { name: 'Check my design' })).toBeVisible();
  const text = (await cand.evaluate(() => document.body.textContent)) ?? '';
  const html = await cand.content();
  for (const w of ANSWER) {
    expect(text, `page text shows "${w}"`).not.toContain(w);
    expect(html, `page HTML holds "${w}"`).not.toContain(w);
  }
  // No mechanism hints, no tab to the catalogue or the compare view.
  await expect(cand.locator('.mechanism .help:not(.switch-facts)')).toHaveCount(0);
  // Only the neutral facts of the two-sided switches (what the workers send), never what follows from them.
  for (const f of await cand.locator('.mechanism .switch-facts').allTextContents()) expect(f).toMatch(/^Workers (take a token|send a key): (no|yes \(.+\))$/);
  const tabs = cand.getByRole('navigation', { name: 'Views' });
  await expect(tabs.getByRole('button', { name: 'Compare', exact: true })).toHaveCount(0);
  await expect(tabs.getByRole('button', { name: 'Catalogue', exact: true })).toHaveCount(0);
  await expect(tabs.getByRole('button', { name: 'Simulate', exact: true })).toHaveCount(1);
  // The exported image: no verdict in its title, no findings drawn.
  const [svgDl] = await Promise.all([cand.waitForEvent('download'), cand.getByRole('button', { name: 'Timeline SVG' }).click()]);
  const svg = readFileSync(await svgDl.path(), 'utf8');
  const prompt = candidatePrompt(findPreset('export-lease-expiry')!.withoutFix);
  expect(svg).toContain(prompt.title);
  expect(svg).not.toContain('Nightly export');
  for (const w of ['violated', 'held', 'DUPLICATE', 'Violation']) expect(svg).not.toContain(w);
  // The PNG: its title (kept as the file's Title text, the words the image draws) has no verdict either.
  const [pngDl] = await Promise.all([cand.waitForEvent('download'), cand.getByRole('button', { name: 'Timeline PNG' }).click()]);
  const candTitle = pngTitle(readFileSync(await pngDl.path()));
  expect(candTitle).toBe(prompt.title);
  // Nor a way to the lessons (their takeaways name fixes) or to presenter mode.
  await expect(cand.getByTestId('to-lessons')).toHaveCount(0);
  await expect(cand.getByTestId('present')).toHaveCount(0);
  // The candidate's address bar never gains the interviewer's notes.
  expect(JSON.stringify(stateOf(cand.url()))).not.toContain(token);

  // Check my design: the prompt's own pause happens in every schedule, so the starting design breaks
  // under it alone; with the fencing token on, safe against it plus one more pause.
  await expect(cand.getByTestId('check-design-scope')).toContainText("The prompt's own faults (Pause A");
  await cand.getByTestId('check-my-design').click();
  await expect(cand.getByTestId('check-result')).toContainText(/Broken by the prompt's own faults alone \(Pause A .*\)\. Invariant broken: /, { timeout: 30_000 });
  await cand.getByRole('checkbox', { name: /fencing/i }).check();
  await expect(cand.locator('.badge-slot')).toContainText('outcome hidden');
  await expect(cand.locator('.badge-slot')).not.toContainText('until the end');
  await cand.getByTestId('check-my-design').click();
  await expect(cand.getByTestId('transcript').getByRole('listitem')).toHaveCount(2, { timeout: 30_000 });
  await expect(cand.getByTestId('transcript').getByRole('listitem').nth(0)).toContainText("Broken by the prompt's own faults alone");
  await expect(cand.getByTestId('check-result')).toContainText(/Safe against the prompt's own faults \(Pause A .*\) plus ≤ 1 fault of these kinds: pause\./);
  await expect(cand.getByTestId('interview-timer')).toContainText(/Time \d+:\d\d/);
  await cand.getByTestId('check-design').scrollIntoViewIfNeeded();
  await cand.screenshot({ path: 'test-results/interview-candidate-1280x800.png' });

  // Axe: interview mode has no serious or critical violations.
  const results = await new AxeBuilder({ page: cand }).analyze();
  expect(results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`)).toEqual([]);

  // The interviewer's link: the verdict, the fix, the model answer, follow-ups and the rubric.
  const intv = await context.newPage();
  await intv.goto(interviewer);
  await expect(intv.getByTestId('verdict')).toContainText('Violated');
  const notes = intv.getByTestId('interviewer-notes');
  await expect(notes.getByTestId('model-answer')).toContainText(FIX);
  await expect(notes).toContainText('Starting design, with ');
  await expect(notes).toContainText('States the invariant');
  await expect(intv.getByText('with the fix')).toBeVisible();
  const [intvPng] = await Promise.all([intv.waitForEvent('download'), intv.getByRole('button', { name: 'Timeline PNG' }).click()]);
  expect(pngTitle(readFileSync(await intvPng.path()))).toBe('Nightly export: the lease expires under a paused worker — violated');
  await intv.screenshot({ path: 'test-results/interview-interviewer-1280x800.png', fullPage: true });
  const intvAxe = await new AxeBuilder({ page: intv }).analyze();
  expect(intvAxe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`)).toEqual([]);
  // The setup panel (links made, textareas) on the first page.
  const setupAxe = await new AxeBuilder({ page }).include('.interview-setup').analyze();
  expect(setupAxe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`)).toEqual([]);
  expect([...errors, ...candErrors]).toEqual([]);
});

test("interview: for fenced-db-write and two lease presets (one whose fix is a fencing token), the candidate's whole page text and every exported file (SVG, PNG title, JSON, transcript, their names) hold none of the preset's answer phrases", async ({ context }) => {
  test.setTimeout(150_000);
  const errors: string[] = [];
  for (const id of ['fenced-db-write', 'unsafe-release', 'export-lease-expiry']) {
    const p = findPreset(id)!;
    const phrases = answerPhrases(p);
    // A page of its own per preset (a hash change keeps the open disclosure of the last one).
    const maker = await context.newPage();
    errors.push(...watchErrors(maker));
    const { candidate } = await makeLinks(maker, id);
    await maker.close();
    const cand = await context.newPage();
    errors.push(...watchErrors(cand));
    await cand.goto(candidate);
    await expect(cand.getByTestId('verdict')).toContainText('Verdict hidden');
    const prompt = candidatePrompt(p.withoutFix);
    await expect(cand.getByRole('heading', { name: prompt.title })).toBeVisible();
    // The event log lists the run (interview mode shows every event): its facts are there.
    for (const e of runScenario(p.withoutFix).events) if (e.fact !== undefined) await expect(cand.locator('.log-narration', { hasText: e.fact }).first()).toBeAttached();
    const text = (await cand.evaluate(() => document.body.innerText + ' ' + document.body.textContent)) ?? '';
    const html = await cand.content();
    for (const w of phrases) {
      expect(text, `${id}: the page shows "${w}"`).not.toContain(w);
      expect(html, `${id}: the page's HTML holds "${w}"`).not.toContain(w);
    }
    const files: { name: string; body: string }[] = [];
    for (const button of ['Timeline SVG', 'Timeline PNG', 'Export JSON', 'Download transcript']) {
      const [dl] = await Promise.all([cand.waitForEvent('download'), cand.getByRole('button', { name: button }).click()]);
      const raw = readFileSync(await dl.path());
      files.push({ name: dl.suggestedFilename(), body: button === 'Timeline PNG' ? (pngTitle(raw) ?? '') : raw.toString('utf8') });
    }
    expect(files[1]!.body).toBe(prompt.title);
    // The transcript's notes are the sentences' facts (the full narration explains what is missing).
    expect(files[3]!.body).toContain(prompt.title);
    // The scenario file prepares no fencing counter its run never reads (a prepared one told the fix).
    if (!p.withoutFix.mechanism.fencing) expect(JSON.parse(files[2]!.body).lease.fenceStart).toBe(0);
    for (const f of files) {
      for (const w of [...phrases, id]) {
        expect(f.body, `${id}: ${f.name} holds "${w}"`).not.toContain(w);
        if (slug(w).length > 6) expect(f.name, `${id}: a file is named with "${w}"`).not.toContain(slug(w));
      }
    }
    await cand.close();
  }
  expect(errors).toEqual([]);
});

test("interview: a reload of the candidate's link keeps the transcript of Check my design and the timer (it goes on, never from 0:00)", async ({ page, context }) => {
  test.setTimeout(120_000);
  const errors = watchErrors(page);
  const { candidate } = await makeLinks(page);
  // The link names its interview (the id both links carry), so a reload finds its timer and transcript.
  const g = JSON.parse(lz.decompressFromEncodedURIComponent(new URLSearchParams(new URL(candidate).hash.slice(1)).get('s')!)).g as { d?: string };
  expect(g.d).toMatch(/^[A-Za-z0-9_-]{16,64}$/);
  const cand = await context.newPage();
  errors.push(...watchErrors(cand));
  await cand.goto(candidate);
  await cand.getByTestId('check-my-design').click();
  const items = cand.getByTestId('transcript').getByRole('listitem');
  await expect(items).toHaveCount(1, { timeout: 30_000 });
  const entry = (await items.first().textContent())!;
  expect(entry).toContain("Broken by the prompt's own faults alone");
  // The candidate changes the design (the address bar follows it), and time passes.
  await cand.getByRole('checkbox', { name: /fencing/i }).check();
  await expect(cand.locator('.badge-slot')).toContainText('outcome hidden');
  const seconds = async () => {
    const m = /Time (\d+):(\d\d)/.exec((await cand.getByTestId('interview-timer').textContent()) ?? '');
    return m ? Number(m[1]) * 60 + Number(m[2]) : -1;
  };
  await expect.poll(seconds, { timeout: 15_000 }).toBeGreaterThanOrEqual(3);
  const before = await seconds();
  await cand.reload();
  await expect(cand.getByRole('heading', { name: 'Check my design' })).toBeVisible();
  await expect(items).toHaveCount(1);
  await expect(items.first()).toHaveText(entry);
  expect(await seconds()).toBeGreaterThanOrEqual(before);
  // The design on screen is the edited one from the address; the clock keeps counting from where it was.
  await expect(cand.getByRole('checkbox', { name: /fencing/i })).toBeChecked();
  await expect.poll(seconds, { timeout: 5_000 }).toBeGreaterThan(before);
  expect(errors).toEqual([]);
});
