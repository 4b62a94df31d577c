/** Colours and patterns of the timeline (each state also has a pattern or label, never colour alone). */
import type { WorkerStateName } from '../../sim';

/** Fill colour per worker state (strong contrast on white). */
export const STATE_FILL: Record<WorkerStateName, string> = {
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
};

/** States drawn with a pattern on top of the fill. */
export const STATE_PATTERN: Partial<Record<WorkerStateName, 'hatch' | 'dots' | 'cross'>> = {
  waiting: 'dots',
  paused: 'hatch',
  crashed: 'cross',
};

/** Text colour readable on the state's fill. */
export function textOn(state: WorkerStateName): string {
  return state === 'waiting' || state === 'idle' || state === 'done' ? '#111827' : '#ffffff';
}
