/**
 * The fidelity report: what the last `npm run test:fidelity` run checked — the server versions it
 * ran against and, per preset and variant, how many transcript steps it replayed and how many
 * replies differed — keyed by a hash of the model's sources (`simSourceHash`), so the app can tell
 * a report of this code from a stale one. `vite.config.ts` reads it at build time (`readReport`)
 * and passes it, with the build's own hash, to the app (`src/ui/fidelity/fidelityStatus.ts`):
 * no report, or one of other sources, reads "not checked in this build".
 *
 * Node only (fs, crypto): the fidelity harness and the Vite config use it, never the app.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FidelityReport } from '../src/ui/fidelity/fidelityStatus';

/** The repository's root (this file is in `fidelity/`). */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Where the report lives (committed, so a build of the same sources shows it). */
export const REPORT_PATH = join(ROOT, 'src', 'generated', 'fidelity-report.json');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).sort().flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : [];
  });
}

/**
 * SHA-256 (first 16 hex digits) over the model's sources: every `.ts` file under `src/sim` but the
 * tests, as `path\0content\0` in path order (paths relative to the root, `/`-separated, so the
 * hash is the same on every OS and checkout). A test change keeps it; any model change moves it.
 */
export function simSourceHash(root: string = ROOT): string {
  const h = createHash('sha256');
  for (const f of sourceFiles(join(root, 'src', 'sim'))) {
    h.update(relative(root, f).split(sep).join('/'));
    h.update('\0');
    h.update(readFileSync(f, 'utf8').replace(/\r\n/g, '\n'));
    h.update('\0');
  }
  return h.digest('hex').slice(0, 16);
}

/** The report at `path`, or null when there is none or it is not a report (never throws). */
export function readReport(path: string = REPORT_PATH): FidelityReport | null {
  if (!existsSync(path)) return null;
  try {
    const r = JSON.parse(readFileSync(path, 'utf8')) as FidelityReport;
    return r && r.version === 1 && typeof r.simSourceHash === 'string' && typeof r.presets === 'object' ? r : null;
  } catch {
    return null;
  }
}

/** Writes the report (pretty-printed, a newline at the end). */
export function writeReport(report: FidelityReport, path: string = REPORT_PATH): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
}
