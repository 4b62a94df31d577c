/**
 * A learner's progress through the guided lessons, kept on this device (localStorage). What is
 * stored is read as untrusted data: anything that does not parse (hand-edited, another version,
 * storage disabled) counts as no progress, never an error.
 */
import { z } from 'zod';
import { LESSON_IDS } from '../../share/link';
import type { LessonId } from './lessons';

/** The storage key. */
export const PROGRESS_KEY = 'lockscope.lessons.v1';

const progressSchema = z.object({
  v: z.literal(1),
  /** Lessons whose exercise passed. */
  done: z.array(z.enum(LESSON_IDS)).max(LESSON_IDS.length),
  /** Questions drawn per lesson (the next question's seed). */
  drawn: z.record(z.string(), z.int().min(0).max(1_000_000)).optional(),
});

/** Progress through the lessons. */
export interface Progress {
  readonly done: readonly LessonId[];
  /** Questions drawn per lesson (seeds the next one: always a new question). */
  readonly drawn: Readonly<Partial<Record<LessonId, number>>>;
}

/** No progress. */
export const NO_PROGRESS: Progress = Object.freeze({ done: [], drawn: {} });

type StorageLike = Pick<Storage, 'getItem' | 'setItem'>;

function storage(): StorageLike | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}

/** Reads the progress (bad or missing data: no progress). Never throws. */
export function loadProgress(store: StorageLike | null = storage()): Progress {
  try {
    const raw = store?.getItem(PROGRESS_KEY);
    if (!raw || raw.length > 10_000) return NO_PROGRESS;
    const r = progressSchema.safeParse(JSON.parse(raw));
    if (!r.success) return NO_PROGRESS;
    const drawn: Partial<Record<LessonId, number>> = {};
    for (const id of LESSON_IDS) if (r.data.drawn?.[id] !== undefined) drawn[id] = r.data.drawn[id];
    return { done: [...new Set(r.data.done)], drawn };
  } catch {
    return NO_PROGRESS;
  }
}

/** Writes the progress (storage full or disabled: nothing kept, no error). */
export function saveProgress(p: Progress, store: StorageLike | null = storage()): void {
  try {
    store?.setItem(PROGRESS_KEY, JSON.stringify({ v: 1, done: p.done, drawn: p.drawn }));
  } catch {
    // Kept for this page only.
  }
}

/** The progress with a lesson marked done. */
export function markDone(p: Progress, id: LessonId): Progress {
  return p.done.includes(id) ? p : { ...p, done: [...p.done, id] };
}

/** The progress with one more question drawn for a lesson, and that question's seed. */
export function drawSeed(p: Progress, id: LessonId): { progress: Progress; seed: number } {
  const seed = p.drawn[id] ?? 0;
  return { progress: { ...p, drawn: { ...p.drawn, [id]: seed + 1 } }, seed };
}
