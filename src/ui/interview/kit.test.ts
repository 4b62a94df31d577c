import { decodeShare, encodeShare } from '../../share/link';
import { describeFault, findPreset, runScenario, PRESETS } from '../../sim';
import { applicableKinds, searchFaults, withoutFaults } from '../../sim/search/search';
import { designInWords, deriveFollowUps, gradeDesign, gradeInWords, interviewLinks, randomToken, defaultAnswer, DEFAULT_RUBRIC, passingKinds, leftOutInWords, promptFaultsFor, setupOf, type FindCounterexample } from './kit';
import { interviewOf, interviewShare } from '../url/urlState';

/** The search in this thread (the app spreads the same search over Web Workers). */
const find: FindCounterexample = async (s, maxFaults, kinds, keepOwnFaults) => searchFaults(s, { maxFaults, kinds, keepOwnFaults: keepOwnFaults ?? false }).counterexample;
const preset = findPreset('export-lease-expiry')!;

describe('interview kit', () => {
  it('the model answer names what the fix changes, steps included', () => {
    expect(defaultAnswer(findPreset('serializable-retry'))).toBe('Charge after COMMIT, with the business key as the idempotency key. Changes: A, B: call POST /v1/charges (500 ms) moves after COMMIT · Idempotency key (honoured by the destination): on (was off).');
    expect(defaultAnswer(findPreset('queue-redelivery'))).toContain('ChangeMessageVisibility');
  });

  it('says a design by what it changed from the starting one', () => {
    expect(designInWords(preset.withoutFix, preset.withoutFix)).toBe('the starting design');
    const fenced = designInWords(preset.withFix, preset.withoutFix);
    expect(fenced).toMatch(/Fencing token.*: on/);
    expect(fenced).not.toContain('Lock:');
    expect(designInWords({ ...preset.withoutFix, lease: { ...preset.withoutFix.lease, ttlMs: 45_000 } }, preset.withoutFix)).toBe('Lease TTL: 45 s');
    expect(designInWords(preset.withoutFix)).toContain('Lock:');
  });

  it('credits only what the candidate changed: a switch that comes into view with another choice keeps its starting value and is not listed', () => {
    const p = findPreset('unsafe-release')!.withoutFix;
    const advisory = { ...p, mechanism: { ...p.mechanism, lock: 'advisory-session' as const } };
    expect(designInWords(advisory, p)).toMatch(/^Lock: [^·]+$/);
    expect(designInWords(advisory, p)).not.toContain('On a job error');
    // Changed too, it is listed.
    const other = { ...advisory, mechanism: { ...advisory.mechanism, onError: advisory.mechanism.onError === 'return' ? 'unlockInFinally' as const : 'return' as const } };
    expect(designInWords(other, p)).toMatch(/On a job error/);
  });

  it('random tokens are URL-safe, 22 characters, and differ', () => {
    const a = randomToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(randomToken()).not.toBe(a);
  });

  it("two links from one scenario: the candidate's holds no answer, no token, no preset id; the interviewer's holds them", async () => {
    const followUps = await deriveFollowUps(preset.withoutFix, preset.withFix, ['pause'], 1, find);
    const token = randomToken();
    const links = interviewLinks(preset.withoutFix, { kinds: ['pause'], maxFaults: 1, answer: defaultAnswer(preset), rubric: DEFAULT_RUBRIC, token }, followUps);
    const cand = decodeShare(encodeShare(links.candidate));
    const intv = decodeShare(encodeShare(links.interviewer));
    expect(cand.ok && intv.ok).toBe(true);
    if (!cand.ok || !intv.ok) return;
    expect(cand.state).toMatchObject({ i: 1, g: { k: ['pause'], n: 1 } });
    expect(cand.state.z).toBeUndefined();
    expect(cand.state.p).toBeUndefined();
    const candText = JSON.stringify(cand.state);
    expect(candText).not.toContain(token);
    expect(candText).not.toContain(preset.fix.slice(1));
    expect(candText).not.toContain(preset.id);
    expect(intv.state.z?.t).toBe(token);
    expect(intv.state.z?.a).toContain(preset.fix.slice(1));
    expect(intv.state.z?.r).toEqual([...DEFAULT_RUBRIC]);
    // Both describe the same run.
    expect(runScenario(cand.scenario).traceHash).toBe(runScenario(intv.scenario).traceHash);
  });

  it("both links carry the interview's id (its timer and transcript are kept under it across a reload), drawn apart from the token; the store's setup and the address keep it", () => {
    const token = randomToken();
    const id = randomToken();
    const links = interviewLinks(preset.withoutFix, { kinds: ['pause'], maxFaults: 1, answer: '', rubric: [], token, id }, []);
    const cand = decodeShare(encodeShare(links.candidate));
    const intv = decodeShare(encodeShare(links.interviewer));
    if (!cand.ok || !intv.ok) throw new Error('links do not decode');
    expect(cand.state.g?.d).toBe(id);
    expect(intv.state.g?.d).toBe(id);
    expect(JSON.stringify(cand.state)).not.toContain(token);
    expect(setupOf(links, 'candidate', { kinds: ['pause'], maxFaults: 1 })).toMatchObject({ role: 'candidate', id });
    expect(interviewOf(cand.state)).toMatchObject({ role: 'candidate', id });
    expect(interviewShare(interviewOf(intv.state)!).g).toEqual({ k: ['pause'], n: 1, d: id });
    // A hand-made id that is not a URL-safe token is refused with the link, as every field is.
    expect(decodeShare(encodeShare({ ...links.candidate, g: { k: [], n: 1, d: '<script>' } })).ok).toBe(false);
  });

  it('each follow-up carries a schedule that makes it bite: the starting design breaks under the first', async () => {
    const followUps = await deriveFollowUps(preset.withoutFix, preset.withFix, ['pause'], 1, find);
    expect(followUps.length).toBeGreaterThanOrEqual(2);
    const first = followUps[0]!;
    expect(first.q).toMatch(/^Starting design, with /);
    const broken = runScenario({ ...preset.withoutFix, faults: first.x });
    expect(broken.verdict.held).toBe(false);
  });

  it('grades a design: the starting design breaks (shortest counterexample and the invariant), the fix is safe against one pause', async () => {
    const bad = await gradeDesign(preset.withoutFix, ['pause'], 1, find);
    expect(bad.safe).toBe(false);
    if (!bad.safe) {
      expect(bad.faults.length).toBeLessThanOrEqual(1);
      expect(gradeInWords(bad)).toMatch(/^Broken with \d faults?: .+ Invariant broken: .+\.$/);
    }
    const good = await gradeDesign(preset.withFix, ['pause'], 1, find);
    expect(good).toEqual({ safe: true, maxFaults: 1, kinds: ['pause'], own: '' });
    expect(gradeInWords(good)).toBe('Safe against ≤ 1 fault of these kinds: pause.');
  });

  it("grades as an interview does (keepOwnFaults): the prompt's own pause is in every schedule, so the starting design breaks with no fault added and the fix is safe on top of it", async () => {
    expect(preset.withoutFix.faults.length).toBeGreaterThan(0);
    const own = describeFault(preset.withoutFix.faults[0]!, preset.withoutFix);
    const bad = await gradeDesign(preset.withoutFix, ['pause'], 1, find, { keepOwnFaults: true });
    expect(bad).toMatchObject({ safe: false, faults: [], own });
    if (!bad.safe) {
      expect(bad.counterexample.own).toEqual(preset.withoutFix.faults);
      expect(bad.counterexample.scenario.faults).toEqual(preset.withoutFix.faults);
      expect(gradeInWords(bad)).toBe(`Broken by the prompt's own faults alone (${own}). Invariant broken: ${bad.invariant}.`);
    }
    const good = await gradeDesign(preset.withFix, ['pause'], 1, find, { keepOwnFaults: true });
    expect(good).toEqual({ safe: true, maxFaults: 1, kinds: ['pause'], own: describeFault(preset.withFix.faults[0]!, preset.withFix) });
    expect(gradeInWords(good)).toMatch(/^Safe against the prompt's own faults \(Pause A .+\) plus ≤ 1 fault of these kinds: pause\.$/);
  });

  it('allowed kinds that do not apply to the design on screen are named, not dropped in silence (a candidate who moves from the lease to an advisory lock)', async () => {
    const p = findPreset('unsafe-release')!;
    const allowed = applicableKinds(p.withFix);
    const advisory = { ...p.withFix, mechanism: { ...p.withFix.mechanism, lock: 'advisory-session' as const } };
    const gone = allowed.filter((k) => !applicableKinds(advisory).includes(k));
    expect(gone.length).toBeGreaterThan(0);
    const g = await gradeDesign(advisory, allowed, 1, find, { keepOwnFaults: true });
    expect(g.inapplicable).toEqual(gone);
    if (g.safe) {
      expect(g.kinds.some((k) => gone.includes(k))).toBe(false);
      expect(gradeInWords(g)).toMatch(new RegExp(`\\(${gone.join(', ')}: allowed, but (it does|they do) not apply to this design\\.\\)$`));
    }
    expect((await gradeDesign(p.withFix, allowed, 1, find)).inapplicable).toBeUndefined();
  });

  it('with its own faults kept, a design that holds under them alone but breaks with one more says both: "Broken with 1 fault on top of the prompt\'s own (…): …"', async () => {
    // unsafe-release's fix (compare-and-delete) holds under the prompt's pause, but a second pause longer than the TTL lets two workers in.
    const p = findPreset('unsafe-release')!;
    expect(runScenario(p.withFix).verdict.held).toBe(true);
    const g = await gradeDesign(p.withFix, ['pause'], 1, find, { keepOwnFaults: true });
    expect(g.safe).toBe(false);
    if (g.safe) return;
    expect(g.faults).toHaveLength(1);
    expect(g.counterexample.scenario.faults).toEqual([...p.withFix.faults, ...g.faults]);
    expect(runScenario(g.counterexample.scenario).verdict.held).toBe(false);
    expect(gradeInWords(g)).toMatch(/^Broken with 1 fault on top of the prompt's own \(Pause .+\): Pause .+\. Invariant broken: .+\.$/);
  });
});

describe("the allowed faults a preset's interview starts with", () => {
  const KEEP = { keepOwnFaults: true } as const;
  it.each(PRESETS.map((p) => [p.id, p] as const))("%s: graded as the interview grades (the prompt's own faults kept, one fault more, as the form starts), the model answer is safe against the default allowed faults and the starting design is not", async (_id, p) => {
    const all = applicableKinds(withoutFaults(p.withoutFix));
    const d = await passingKinds(p.withFix, p.withoutFix, all, 1, find, KEEP);
    expect(d.brokenWithoutFaults).toBe(false);
    expect(d.kinds.length, `${p.id}: some kind is left in`).toBeGreaterThan(0);
    expect(d.kinds.every((k) => all.includes(k))).toBe(true);
    // As "Check my design" grades it: the link carries d.kinds.
    expect(await gradeDesign(p.withFix, d.kinds, 1, find, KEEP)).toMatchObject({ safe: true });
    // Each kind left out breaks the model answer with a schedule of its own.
    for (const o of d.leftOut) {
      const g = await gradeDesign(p.withFix, o.kinds, 1, find, KEEP);
      expect(g.safe, `${p.id}: ${o.kinds.join('+')} was left out, so it breaks the model answer`).toBe(false);
    }
    // Check my design tells the two apart: a starting design that breaks as the prompt shows it
    // (every preset but thumbnail, whose fix is "none needed") breaks under the same grading.
    const start = await gradeDesign(p.withoutFix, d.kinds, 1, find, KEEP);
    expect(d.startHolds).toBe(start.safe);
    if (!runScenario(p.withoutFix).verdict.held) expect(start.safe, `${p.id}: the starting design passes the grading the model answer passes`).toBe(false);
  }, 60_000);

  it('unsafe-release, graded bare (as a lesson grades): pause is left out, named with the schedule that breaks compare-and-delete, and the starting design then holds too; with its own faults kept it does not', async () => {
    const p = findPreset('unsafe-release')!;
    const all = applicableKinds(withoutFaults(p.withoutFix));
    expect((await gradeDesign(p.withFix, all, 1, find)).safe).toBe(false);
    const d = await passingKinds(p.withFix, p.withoutFix, all, 1, find);
    expect(d.kinds).not.toContain('pause');
    expect(d.leftOut[0]).toMatchObject({ kinds: ['pause'] });
    expect(leftOutInWords(d)).toMatch(/^pause \(with Pause A for \d+ s before step \d \(\w+\), the model answer breaks: A and B were inside the critical section/);
    expect(d.startHolds).toBe(true);
    // The interview keeps the prompt's own pause: the starting design (plain DEL) breaks under it alone.
    const kept = await passingKinds(p.withFix, p.withoutFix, all, 1, find, { keepOwnFaults: true });
    expect(kept.kinds).not.toContain('pause');
    expect(kept.startHolds).toBe(false);
  });

  it('export-lease-expiry: the fencing token withstands every kind that applies; nothing is left out', async () => {
    const p = findPreset('export-lease-expiry')!;
    const all = applicableKinds(withoutFaults(p.withoutFix));
    const d = await passingKinds(p.withFix, p.withoutFix, all, 1, find);
    expect(d).toEqual({ kinds: all, leftOut: [], brokenWithoutFaults: false, startHolds: false });
  });
});

describe("the prompt's faults on a design with a longer lease (promptFaultsFor)", () => {
  const p = findPreset('unsafe-release')!;
  const longer = (s: typeof p.withoutFix, ttlMs: number) => ({ ...s, lease: { ...s.lease, ttlMs } });

  it('a longer TTL is not a fix: plain DEL with a 20 s lease still breaks on the prompt\'s pause, grown by the 10 s increase', async () => {
    const candidate = longer(p.withoutFix, 20_000);
    const raw = { ...candidate, faults: [...p.withoutFix.faults] };
    // Graded against the prompt's pause as it was, the longer lease swallows it: a non-fix passed.
    expect((await gradeDesign(raw, ['crash'], 1, find, { keepOwnFaults: true })).safe).toBe(true);
    const { faults, grown } = promptFaultsFor(candidate, p.withoutFix);
    expect(grown).toEqual(['pause 5 s → 15 s (A)']);
    const g = await gradeDesign({ ...candidate, faults }, ['crash'], 1, find, { keepOwnFaults: true });
    expect(g.safe).toBe(false);
    expect(gradeInWords(g)).toMatch(/^Broken by the prompt's own faults alone \(Pause A for 15 s/);
  });

  it('the same TTL, a shorter one, or no lease keeps the prompt\'s faults as they are', () => {
    expect(promptFaultsFor(p.withFix, p.withoutFix)).toEqual({ faults: p.withoutFix.faults, grown: [] });
    expect(promptFaultsFor(longer(p.withoutFix, 5_000), p.withoutFix).grown).toEqual([]);
    const advisory = { ...longer(p.withoutFix, 20_000), mechanism: { ...p.withoutFix.mechanism, lock: 'advisory-xact' as const } };
    expect(promptFaultsFor(advisory, p.withoutFix).faults).toEqual(p.withoutFix.faults);
  });
});
