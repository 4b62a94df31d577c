import type { FidelityReport } from '../src/ui/fidelity/fidelityStatus';

/** The repository's root. */
export declare const ROOT: string;
/** `src/generated/fidelity-report.json` under the root. */
export declare const REPORT_PATH: string;
/** SHA-256 (16 hex digits) over `src/sim`'s non-test `.ts` sources. */
export declare function simSourceHash(root?: string): string;
/** The report at `path`, or null when absent or not a version-2 report. Never throws. */
export declare function readReport(path?: string): FidelityReport | null;
/** Writes the report. */
export declare function writeReport(report: FidelityReport, path?: string): void;
