/**
 * Shareable links: everything needed to reproduce what the sender saw (the scenario as a preset
 * id plus changes, or in full; the faults; mechanism choices; the cursor; the view), versioned
 * (`v=1`) and compressed with lz-string into the URL fragment.
 *
 * Decoding treats every link as hostile: size caps before and after decompression (a
 * decompression bomb is refused), JSON parsed defensively, shapes validated with zod, and every
 * problem reported as `{ path, message }`. Never throws. Pure: no DOM.
 */
import { candidateScenario } from './candidatePrompt';
import * as lzModule from 'lz-string';
import { z } from 'zod';
import { LIMITS, findPreset, parseScenario, validateScenario, faultSchema, mechanismSchema, formatZodIssues, type Scenario, type ValidationError } from '../sim';

// lz-string is CommonJS without detectable named exports: Node's ESM loader exposes it as `default`, bundlers as the namespace.
type Lz = typeof lzModule;
const lz: Lz = (lzModule as unknown as { default?: Lz }).default ?? lzModule;

/** The link format version this build writes and reads. */
export const LINK_VERSION = 1;
/** Longest fragment accepted, in characters (a link is meant to stay under 1,500). */
export const MAX_LINK_CHARS = 8_000;
/** Largest decompressed payload accepted, in characters. */
export const MAX_DECOMPRESSED_CHARS = 200_000;

/** Which screen layout the link opens. */
export type ViewMode = 'single' | 'compare' | 'edit';

/** Longest interviewer's text (model answer, one question, one rubric line), in characters. */
export const MAX_NOTE_CHARS = 600;

/** The faults an interview lets the search use when it grades a design: fault kinds and at most `n` per schedule. */
export const gradingSchema = z.strictObject({
  /** Fault kinds (registry ids, e.g. "pause", "crash"); empty = every kind that applies. */
  k: z.array(z.string().regex(/^[a-zA-Z][a-zA-Z0-9-]{0,39}$/)).max(16),
  /** At most this many faults per schedule (1–3). */
  n: z.int().min(1).max(3),
  /**
   * The interview's id: random (URL-safe, 16–64 characters), the same in both of its links and
   * drawn apart from the interviewer's token (`z.t`), so it tells nothing of the interviewer's link.
   * It names the interview across a reload: its timer and transcript are kept under it
   * (src/ui/interview/session.ts). Absent in links made before it existed.
   */
  d: z.string().regex(/^[A-Za-z0-9_-]{16,64}$/).optional(),
});

/** The interviewer's side of an interview (only in the interviewer's link: never looked up by preset id). */
export const interviewerNotesSchema = z.strictObject({
  /** Random secret (URL-safe, 16–64 characters): the candidate's link lacks it, so the interviewer's link cannot be derived from it. */
  t: z.string().regex(/^[A-Za-z0-9_-]{16,64}$/),
  /** The model answer. */
  a: z.string().max(MAX_NOTE_CHARS),
  /**
   * Follow-up questions, each with the whole fault schedule that makes it bite (`x`: the prompt's
   * own faults, which an interview's grading keeps, then up to 3 the search added) and, with `m`,
   * the design it is about: the model answer's (its "Show this schedule" shows that design), else
   * the starting design's.
   */
  q: z.array(z.strictObject({ q: z.string().max(MAX_NOTE_CHARS), x: z.array(faultSchema).max(LIMITS.maxFaults + 3), m: z.literal(1).optional() })).max(8),
  /** Rubric lines. */
  r: z.array(z.string().max(MAX_NOTE_CHARS)).max(8),
});

/** Longest bookmark annotation, in characters ("here A still believes it owns the lease"). */
export const MAX_BOOKMARK_CHARS = 140;
/** Most bookmarks a link holds. */
export const MAX_BOOKMARKS = 24;

/** A bookmark: a moment of the timeline (virtual ms) and a short annotation. */
export const bookmarkSchema = z.strictObject({
  /** The moment, in virtual ms. */
  m: z.int().min(0).max(LIMITS.maxHorizonMs),
  /** The annotation (may be empty). */
  n: z.string().max(MAX_BOOKMARK_CHARS),
});

/** Ids of the guided lessons (src/ui/lessons/lessons.ts holds their content). */
export const LESSON_IDS = ['invariant', 'unique', 'row-lock', 'advisory-lock', 'lease', 'fencing', 'idempotency', 'recovery'] as const;

/** A guided lesson's state: which lesson, the question's seed, the stage reached and the prediction chosen. */
export const lessonStateSchema = z.strictObject({
  /** The lesson's id. */
  id: z.enum(LESSON_IDS),
  /** Seed of the question drawn ("which of these fault schedules breaks this design?"). */
  q: z.int().min(0).max(2 ** 31 - 1),
  /** Stage reached: 0 question, 1 prediction checked, 2 reveal, 3 exercise. */
  st: z.int().min(0).max(3),
  /** The options picked in the prediction (indexes). */
  a: z.array(z.int().min(0).max(7)).max(8).optional(),
});

/** A workshop window: the presenter's or the audience's, and the channel (BroadcastChannel name part) that keeps them in step. */
export const workshopSchema = z.strictObject({
  role: z.enum(['presenter', 'audience']),
  /** Random channel id (URL-safe, 8–64 characters): two workshops in one browser do not hear each other. */
  ch: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/),
});

/** What a link holds (short keys keep links short). */
export const shareStateSchema = z.strictObject({
  /** Preset id the scenario starts from. */
  p: z.string().max(60).optional(),
  /** 1 = the preset's "with the fix" variant. */
  f: z.union([z.literal(0), z.literal(1)]).optional(),
  /** Mechanism switches changed from the preset. */
  m: mechanismSchema.partial().optional(),
  /** The faults (replacing the preset's). */
  x: z.array(faultSchema).max(32).optional(),
  /** A whole scenario (when it was edited beyond switches and faults). */
  s: z.unknown().optional(),
  /** Cursor: index of the current event. */
  c: z.int().min(0).max(1_000_000).optional(),
  /** Cursor time in virtual ms, when it is not the time of event `c` (a cursor scrubbed between events). */
  a: z.int().min(0).max(LIMITS.maxHorizonMs).optional(),
  /** View mode: the simulator (default), the compare view, or the scenario editor. */
  w: z.enum(['single', 'compare', 'edit']).optional(),
  /** Compare view: mechanism switches of the right-hand side. */
  k: mechanismSchema.partial().optional(),
  /** 1 = predict-then-reveal: the verdict stays hidden until the last event. */
  h: z.literal(1).optional(),
  /** 1 = large type (for a projector): the page and the timeline scaled up. */
  t: z.literal(1).optional(),
  /** Interview: 1 = the candidate's link (every hint of the answer hidden), 2 = the interviewer's (with `z`). */
  i: z.union([z.literal(1), z.literal(2)]).optional(),
  /** Interview: the faults "Check my design" grades against. */
  g: gradingSchema.optional(),
  /** Interview: the interviewer's notes (only with `i` = 2). */
  z: interviewerNotesSchema.optional(),
  /**
   * 1 = the embed view: only the timeline, the verdict and the transport, sized to its frame (an
   * `<iframe>` in a slide deck or a blog post), with a link to open the full view. Read-only: it
   * never writes drafts or preferences and never adds a history entry to the page around it.
   */
  e: z.literal(1).optional(),
  /** Bookmarks with annotations on moments of the timeline. */
  b: z.array(bookmarkSchema).max(MAX_BOOKMARKS).optional(),
  /** A guided lesson's state. */
  l: lessonStateSchema.optional(),
  /** Workshop presenter mode: which window this is. */
  r: workshopSchema.optional(),
}).superRefine((st, ctx) => {
  if (st.z !== undefined && st.i !== 2) ctx.addIssue({ code: 'custom', path: ['z'], message: "interviewer's notes belong only in an interviewer's link (i=2)" });
  if (st.i === 2 && st.z === undefined) ctx.addIssue({ code: 'custom', path: ['z'], message: "is missing: an interviewer's link carries the notes" });
  if (st.e !== undefined && st.i !== undefined) ctx.addIssue({ code: 'custom', path: ['e'], message: 'an embed shows a run, not an interview: a link cannot be both' });
  if (st.e !== undefined && st.w !== undefined && st.w !== 'single') ctx.addIssue({ code: 'custom', path: ['e'], message: `an embed shows the simulator only, not the ${st.w} view` });
  if (st.i === 1 && st.p !== undefined) ctx.addIssue({ code: 'custom', path: ['p'], message: "a candidate's link carries the scenario in full, never a preset id" });
  if (st.l !== undefined && st.i !== undefined) ctx.addIssue({ code: 'custom', path: ['l'], message: 'a lesson cannot be part of an interview' });
  if (st.r !== undefined && st.i !== undefined) ctx.addIssue({ code: 'custom', path: ['r'], message: 'a workshop window cannot be part of an interview' });
});

/** Decoded link state. */
export type ShareState = z.infer<typeof shareStateSchema>;

/** A decoded link: the state and the scenario it describes, or every problem found. */
export type DecodeResult = { readonly ok: true; readonly state: ShareState; readonly scenario: Scenario } | { readonly ok: false; readonly errors: readonly ValidationError[] };

/** `v=1&s=<lz-string>`: the fragment (without `#`) for a state. */
export function encodeShare(state: ShareState): string {
  const json = JSON.stringify(state);
  let encoded = encodedCache.get(json);
  if (encoded === undefined) {
    encoded = `v=${LINK_VERSION}&s=${lz.compressToEncodedURIComponent(json)}`;
    if (encodedCache.size >= ENCODED_CACHE) encodedCache.delete(encodedCache.keys().next().value!);
    encodedCache.set(json, encoded);
  }
  return encoded;
}

/**
 * The last few links made, by state content: after one edit the address, the share panel and the
 * draft each ask for the same link, and compressing a 10-worker scenario costs ~5 ms each time.
 */
const encodedCache = new Map<string, string>();
const ENCODED_CACHE = 16;

const fail = (path: string, message: string): DecodeResult => ({ ok: false, errors: [{ path, message }] });

/** Decodes a fragment (with or without a leading `#` or `?`). Never throws. */
export function decodeShare(fragment: string): DecodeResult {
  if (typeof fragment !== 'string') return fail('link', 'must be text');
  if (fragment.length > MAX_LINK_CHARS) return fail('link', `is ${fragment.length} characters long; links over ${MAX_LINK_CHARS} are refused`);
  const params = new URLSearchParams(fragment.replace(/^[#?]/, ''));
  const v = params.get('v');
  if (v === null) return fail('link.v', 'is missing: this is not a Lockscope link');
  if (!/^\d{1,6}$/.test(v)) return fail('link.v', `must be a version number, not "${v.slice(0, 20)}"`);
  if (Number(v) > LINK_VERSION) return fail('link.v', `is ${v}: the link was made by a newer Lockscope (this one reads version ${LINK_VERSION})`);
  if (Number(v) < 1) return fail('link.v', 'must be at least 1');
  const data = params.get('s');
  if (data === null || data === '') return fail('link.s', 'is missing: the link holds no scenario');
  let json: string | null;
  try {
    json = lz.decompressFromEncodedURIComponent(data);
  } catch {
    json = null;
  }
  if (json === null || json === '') return fail('link.s', 'is not compressed Lockscope data (the link may be truncated or garbled)');
  if (json.length > MAX_DECOMPRESSED_CHARS) return fail('link.s', `decompresses to ${json.length} characters, over the limit of ${MAX_DECOMPRESSED_CHARS}: refused`);
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return fail('link.s', 'decompresses to something that is not JSON');
  }
  const parsed = shareStateSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, errors: formatZodIssues(parsed.error.issues).map(prefix('link')) };
  const built = scenarioFromShare(parsed.data);
  return built.ok ? { ok: true, state: parsed.data, scenario: built.scenario } : built;
}

function prefix(root: string) {
  return (e: ValidationError): ValidationError => ({ path: e.path === '(root)' ? root : `${root}.${e.path}`, message: e.message });
}

/** Builds the scenario a link describes: the full scenario, or the preset variant with its changes. */
export function scenarioFromShare(state: ShareState): { ok: true; scenario: Scenario } | { ok: false; errors: ValidationError[] } {
  if (state.s !== undefined) {
    const r = parseScenario(state.s);
    return r.ok ? { ok: true, scenario: r.scenario } : { ok: false, errors: r.errors.map(prefix('scenario')) };
  }
  if (state.p === undefined) return { ok: false, errors: [{ path: 'link.p', message: 'is missing: name a preset or include a scenario' }] };
  const preset = findPreset(state.p);
  if (!preset) return { ok: false, errors: [{ path: 'link.p', message: `no preset "${state.p.slice(0, 60)}"` }] };
  const base = state.f === 1 ? preset.withFix : preset.withoutFix;
  const candidate: Scenario = { ...base, mechanism: { ...base.mechanism, ...state.m }, faults: state.x ?? base.faults };
  const r = validateScenario(candidate);
  return r.ok ? { ok: true, scenario: r.scenario } : { ok: false, errors: r.errors.map(prefix('scenario')) };
}

/** What a link holds besides the scenario. */
export type ShareExtra = Pick<ShareState, 'c' | 'a' | 'w' | 'k' | 'h' | 't' | 'i' | 'g' | 'z' | 'e' | 'b' | 'l' | 'r'>;

/**
 * The smallest state for a scenario: preset id + variant + changed switches + faults when it
 * differs from a preset only there; the whole scenario otherwise. `prefer` = 1 tries the preset's
 * "with the fix" variant first (so a link keeps the variant the sender had loaded).
 */
export function shareFromScenario(scenario: Scenario, extra: ShareExtra = {}, prefer: 0 | 1 = 0): ShareState {
  // A candidate's link names no preset (its id would lead to the preset's fix), and its title and
  // description are the neutral prompt (theirs may tell the outcome or what is missing): the
  // scenario in full as `candidateScenario` words it.
  if (extra.i === 1) return { s: candidateScenario(scenario), ...extra };
  const preset = scenario.id === undefined ? undefined : findPreset(scenario.id);
  if (preset) {
    const variants = [[0, preset.withoutFix], [1, preset.withFix]] as const;
    for (const [f, base] of prefer === 1 ? [variants[1], variants[0]] : variants) {
      const { mechanism: _m, faults: _f, ...restA } = scenario;
      const { mechanism: _bm, faults: _bf, ...restB } = base;
      if (canonical(restA) !== canonical(restB)) continue;
      const m: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(scenario.mechanism)) if (base.mechanism[key as keyof typeof base.mechanism] !== value) m[key] = value;
      const faultsSame = canonical(scenario.faults) === canonical(base.faults);
      return { p: preset.id, ...(f === 1 ? { f } : {}), ...(Object.keys(m).length > 0 ? { m } : {}), ...(faultsSame ? {} : { x: scenario.faults }), ...extra };
    }
  }
  return { s: scenario, ...extra };
}

/** JSON with object keys sorted: validated copies (zod output) and preset objects compare equal. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, val: unknown) => (val && typeof val === 'object' && !Array.isArray(val) ? Object.fromEntries(Object.entries(val).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : val));
}
