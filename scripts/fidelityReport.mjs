/**
 * The fidelity report on disk (Node only: fs, crypto), for `vite.config.ts` (which hands it to
 * the app) and `fidelity/report.ts` (which writes it). Plain JavaScript so that the Vite config can
 * import it with its extension; types in `fidelityReport.d.mts`.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root (this file is in `scripts/`). */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Where the report lives (committed, so a build of the same sources shows it). */
export const REPORT_PATH = join(ROOT, 'src', 'generated', 'fidelity-report.json');

/** @param {string} dir @returns {string[]} */
function sourceFiles(dir) {
  return readdirSync(dir).sort().flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : [];
  });
}

/**
 * SHA-256 (first 16 hex digits) over the model's sources: every `.ts` file under `src/sim` but the
 * tests, as `path\0content\0` in path order (paths relative to the root, `/`-separated, CRLF read
 * as LF, so the hash is the same on every OS and checkout). A test change keeps it; any change of
 * the model moves it.
 * @param {string} [root]
 */
export function simSourceHash(root = ROOT) {
  const h = createHash('sha256');
  for (const f of sourceFiles(join(root, 'src', 'sim'))) {
    h.update(relative(root, f).split(sep).join('/'));
    h.update('\0');
    h.update(readFileSync(f, 'utf8').replace(/\r\n/g, '\n'));
    h.update('\0');
  }
  return h.digest('hex').slice(0, 16);
}

/**
 * The report at `path`, or null when there is none or it is not a version-2 report (never throws).
 * Version 1 did not say which steps of a transcript were replayed, so it cannot back a claim.
 * @param {string} [path]
 */
export function readReport(path = REPORT_PATH) {
  if (!existsSync(path)) return null;
  try {
    const r = JSON.parse(readFileSync(path, 'utf8'));
    return r && r.version === 2 && typeof r.simSourceHash === 'string' && r.presets && typeof r.presets === 'object' ? r : null;
  } catch {
    return null;
  }
}

/** Writes the report, pretty-printed with a newline at the end. @param {unknown} report @param {string} [path] */
export function writeReport(report, path = REPORT_PATH) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
}
