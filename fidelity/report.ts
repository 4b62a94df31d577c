/**
 * The fidelity report: what the last `npm run test:fidelity` run checked — the server versions it
 * ran against and, per preset and variant, how many transcript steps it replayed and how many
 * replies differed — keyed by a hash of the model's sources (`simSourceHash`), so the app can tell
 * a report of this code from a stale one. `vite.config.ts` reads it at build time and passes it,
 * with the build's own hash, to the app (`src/ui/fidelity/fidelityStatus.ts`): no report, or one
 * written for other sources, reads "not checked in this build".
 * The implementation is `scripts/fidelityReport.mjs` (plain JavaScript, so the Vite config imports it with its extension).
 */
export { REPORT_PATH, ROOT, readReport, simSourceHash, writeReport } from '../scripts/fidelityReport.mjs';
