/** Words and the test seam shared by the Explore panel and its matrix. */
import { fmtTime } from '../../sim';
import type { RangeRunner } from './coordinator';
import { createRunners } from './workerRunner';

/** Words for a fault kind (its column header and checkbox). */
export const KIND_LABELS: Readonly<Record<string, string>> = {
  pause: 'pause', crash: 'crash', partition: 'partition', jobError: 'job error', adminBypass: 'admin bypass',
  expireLease: 'lease expiry', manualDelete: 'manual DEL', failover: 'failover', clockJump: 'clock jump', renewalStall: 'renewal stall',
};
/** The label of a kind (its id when it has none). */
export const kindLabel = (k: string): string => KIND_LABELS[k] ?? k;

/** A duration (elapsed, time left), worded like every other time in the app (`fmtTime`). */
export function fmtDuration(ms: number): string {
  return fmtTime(ms);
}

/** Test seam: how runners and the clock are made (Web Workers and performance.now in the app). */
export interface ExploreEnv {
  readonly runners: () => RangeRunner[];
  readonly now: () => number;
}
/** Web Workers, one per core, and `performance.now`. */
export const defaultEnv: ExploreEnv = { runners: () => createRunners(), now: () => performance.now() };


/** After opening a run: show the top of the page (the verdict, the timeline, the divergence) in the next frame. */
export function toTop(): void {
  if (typeof requestAnimationFrame === 'function' && !navigator.userAgent.includes('jsdom')) requestAnimationFrame(() => window.scrollTo(0, 0));
}

