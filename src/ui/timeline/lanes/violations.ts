/** The marks row above the lanes: one mark per violation or harmless-duplicate note, at its last cited event. */
import type { DerivedRun } from '../../store/derive';

/** A violation (or duplicate note) mark. */
export interface ViolationMark { readonly atMs: number; readonly message: string; readonly eventId: string; readonly severity: 'violation' | 'redundant' | 'unchecked' }

/**
 * The verdict's findings as marks, violations first. A note at an event a violation already marks
 * gets no mark of its own (one mark per place, so each stays clickable); the verdict panel lists it.
 */
export function violationMarks(run: DerivedRun): ViolationMark[] {
  const timeOf = (id: string) => run.events.find((e) => e.id === id)?.atMs ?? 0;
  const marked = new Set(run.verdict.violations.map((f) => f.eventIds.at(-1) ?? ''));
  return [...run.verdict.violations, ...run.verdict.notes.filter((f) => !marked.has(f.eventIds.at(-1) ?? ''))].map((f) => {
    const eventId = f.eventIds.at(-1) ?? '';
    return { atMs: timeOf(eventId), message: f.message, eventId, severity: f.severity };
  });
}
