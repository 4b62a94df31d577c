/** The marks row above the lanes: one mark per violation or harmless-duplicate note, at its last cited event. */
import type { DerivedRun } from '../../store/derive';

/** A violation (or harmless-duplicate note) mark. */
export interface ViolationMark { readonly atMs: number; readonly message: string; readonly eventId: string; readonly severity: 'violation' | 'redundant' }

/** The verdict's findings as marks. */
export function violationMarks(run: DerivedRun): ViolationMark[] {
  const timeOf = (id: string) => run.events.find((e) => e.id === id)?.atMs ?? 0;
  return [...run.verdict.violations, ...run.verdict.notes].map((f) => {
    const eventId = f.eventIds.at(-1) ?? '';
    return { atMs: timeOf(eventId), message: f.message, eventId, severity: f.severity };
  });
}
