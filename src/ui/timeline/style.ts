/** Colours and patterns of the timeline (each state also has a pattern or label, never colour alone). */
import type { WorkerStateName } from '../../sim';

/**
 * What a worker lane shows for a span: a machine state, or `polling` — the worker asks an empty
 * queue for a message, again and again (its machine says `working`; the trace says it has no job).
 */
export type LaneState = WorkerStateName | 'polling';

/** Fill colour per lane state (strong contrast on white). */
export const STATE_FILL: Record<LaneState, string> = {
  idle: '#adb5bd',
  requesting: '#6c757d',
  waiting: '#ced4da',
  holding: '#0b7a75',
  working: '#1d4ed8',
  performingEffect: '#6d28d9',
  recordingCompletion: '#166534',
  releasing: '#495057',
  paused: '#c2410c',
  crashed: '#111827',
  done: '#adb5bd',
  polling: '#a5dde3',
};

/** States drawn with a pattern on top of the fill. */
export const STATE_PATTERN: Partial<Record<LaneState, 'hatch' | 'dots' | 'cross'>> = {
  waiting: 'dots',
  polling: 'dots',
  paused: 'hatch',
  crashed: 'cross',
};

/** Text colour readable on the state's fill. */
export function textOn(state: LaneState): string {
  return state === 'waiting' || state === 'polling' || state === 'idle' || state === 'done' ? '#111827' : '#ffffff';
}
