/**
 * The building blocks of the scenario schema that other modules reuse (the fault registry builds
 * each fault kind's schema from them): the limits, durations and identifiers. Pure data + zod.
 *
 * Units: every duration is an integer number of virtual milliseconds and its name ends in `Ms`.
 */
import { z } from 'zod';

/** Upper bounds on what one scenario may ask for (the UI shows them in its messages). */
export const LIMITS = {
  /** Longest run, in virtual milliseconds (1 hour). */
  maxHorizonMs: 3_600_000,
  /** Longest single duration (a step, a pause, a TTL), in virtual milliseconds. */
  maxDurationMs: 3_600_000,
  maxWorkers: 16,
  maxStepsPerWorker: 40,
  maxFaults: 32,
  /** Trace events one run may produce before it stops with a "too many events" error. */
  maxEvents: 20_000,
  maxTextLength: 2_000,
} as const;

/** A duration in virtual ms, 0 … LIMITS.maxDurationMs. */
export const durationMs = z.int().min(0).max(LIMITS.maxDurationMs);
/** A duration in virtual ms, 1 … LIMITS.maxDurationMs. */
export const positiveMs = z.int().min(1).max(LIMITS.maxDurationMs);
/** A worker id: 1–16 letters, digits, `-` or `_`, starting with a letter. */
export const identifier = z.string().regex(/^[A-Za-z][A-Za-z0-9_-]{0,15}$/, { error: 'must be 1–16 letters, digits, "-" or "_", starting with a letter' });

/**
 * Where a fault fires: at a virtual time, or at a worker's step (+ phase). Every fault kind's
 * schema spreads these fields (validate.ts checks that exactly one placement is given).
 */
export const faultPlacement = {
  /** Fault time (virtual ms). Give either atMs, or step (+ phase) for a worker fault. */
  atMs: durationMs.optional(),
  /** Index into the worker's steps where the fault fires. */
  step: z.int().min(0).max(LIMITS.maxStepsPerWorker - 1).optional(),
  phase: z.enum(['before', 'after']).optional(),
};
