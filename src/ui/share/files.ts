/**
 * Files in and out: the scenario as JSON (export, and import through parseScenario with field
 * paths), and downloads through a blob URL (no network).
 */
import { findPreset, parseScenario, type Scenario, type ValidationError } from '../../sim';

/** Largest scenario file accepted, in bytes. */
export const MAX_IMPORT_BYTES = 1_000_000;

/** The scenario as a pretty-printed JSON file body (the format `npm run simulate -- file.json` reads). */
export function scenarioJson(s: Scenario): string {
  return `${JSON.stringify(s, null, 2)}\n`;
}

/** A file name from a scenario (preset id or title), safe on every OS. */
export function fileBase(s: Scenario): string {
  const base = (s.id ?? s.title).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60);
  return base || 'scenario';
}

/** JSON with every object's keys in sorted order: a scenario decoded from a link (zod's key order) equals the preset it came from. */
function canonicalJson(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (x !== null && typeof x === 'object' && !Array.isArray(x)
    ? Object.fromEntries(Object.entries(x as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    : x));
}

/** The presets' variants as canonical JSON, computed once each (an edit compares the new scenario with them). */
const presetJson = new WeakMap<Scenario, string>();
function canonicalPreset(s: Scenario): string {
  let j = presetJson.get(s);
  if (j === undefined) presetJson.set(s, (j = canonicalJson(s)));
  return j;
}

/** The preset a scenario is, unchanged (`withFix` or `withoutFix`), or null for an edited or own scenario. Key order does not count. */
export function unchangedPreset(s: Scenario): { id: string; variant: 'with the fix' | 'without the fix' } | null {
  const p = s.id ? findPreset(s.id) : undefined;
  if (!p) return null;
  const json = canonicalJson(s);
  if (json === canonicalPreset(p.withoutFix)) return { id: p.id, variant: 'without the fix' };
  if (json === canonicalPreset(p.withFix)) return { id: p.id, variant: 'with the fix' };
  return null;
}

/**
 * What a download's name says of the variant: `-without-fix` / `-with-fix` for a preset's variant
 * unchanged (`unchangedPreset`), `-edited` for any other scenario, and nothing when `neutral` (an
 * interview candidate's page: the names must not tell the preset or which variant it is).
 */
export function variantSuffix(s: Scenario, neutral: boolean): string {
  if (neutral) return '';
  const p = unchangedPreset(s);
  return p === null ? '-edited' : p.variant === 'with the fix' ? '-with-fix' : '-without-fix';
}

/** The start of every download name for `s`: `fileBase` and `variantSuffix` (`failover-fence-without-fix`). */
export function downloadBase(s: Scenario, neutral: boolean): string {
  return `${fileBase(s)}${variantSuffix(s, neutral)}`;
}

/**
 * The title of an exported image: the scenario's title, and its verdict ("— violated") only while
 * the view shows the verdict (predict mode before the reveal and interview mode hide it).
 */
export function imageTitle(title: string, status: string, showVerdict: boolean): string {
  return showVerdict ? `${title} — ${status}` : title;
}

/** What an export of the scenario on screen is called: the image's title and the download file names. */
export interface ExportNames {
  readonly imageTitle: string;
  readonly svg: string;
  readonly png: string;
  readonly json: string;
}

/**
 * The names the share panel's exports use for `s` (the view's composed scenario): from its title
 * and id, and the variant (`variantSuffix`) — in a candidate's interview (`neutral`) the neutral
 * prompt with no preset id (src/share/candidatePrompt.ts) and no variant, so no file name or image
 * title tells the answer.
 */
export function exportNames(s: Scenario, status: string, showVerdict: boolean, neutral: boolean): ExportNames {
  const base = downloadBase(s, neutral);
  return { imageTitle: imageTitle(s.title, status, showVerdict), svg: `${base}-timeline.svg`, png: `${base}-timeline.png`, json: `${base}.json` };
}

/** Parses a scenario file's text: JSON, then migrations + validation. Never throws. */
export function parseScenarioText(text: string): { ok: true; scenario: Scenario } | { ok: false; errors: readonly ValidationError[] } {
  if (text.length > MAX_IMPORT_BYTES) return { ok: false, errors: [{ path: 'file', message: `is ${text.length} characters long; files over ${MAX_IMPORT_BYTES} are refused` }] };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { ok: false, errors: [{ path: 'file', message: `is not JSON: ${String((e as Error).message).slice(0, 200)}` }] };
  }
  return parseScenario(raw);
}

/** Reads and parses a chosen file. Never throws. */
export async function readScenarioFile(file: File): Promise<ReturnType<typeof parseScenarioText>> {
  if (file.size > MAX_IMPORT_BYTES) return { ok: false, errors: [{ path: 'file', message: `is ${file.size} bytes; files over ${MAX_IMPORT_BYTES} are refused` }] };
  try {
    return parseScenarioText(await file.text());
  } catch (e) {
    return { ok: false, errors: [{ path: 'file', message: `could not be read: ${String((e as Error)?.message ?? e).slice(0, 200)}` }] };
  }
}

/** Saves a blob as a download (an object URL: nothing leaves the browser). */
export function download(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** What an interview candidate's page and transcript say where the trace hash would be: the hash is the preset's, so it would name it. */
export const WITHHELD_HASH = 'withheld in an interview';
