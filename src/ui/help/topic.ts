/** Which view Help describes (./HelpDialog.tsx, ./HelpContent.tsx). */
import type { View, ViewMode } from '../store/types';

/** What "Using …" describes: the view Help is opened from (an interview's candidate side is its own). */
export type HelpTopic = 'interview' | 'lesson' | 'lessons' | 'catalogue' | 'simulate' | 'compare' | 'edit' | 'workshop';

/** The help topic of a view in a mode. */
export function helpTopic(view: View, mode: ViewMode): HelpTopic {
  if (mode === 'interview') return 'interview';
  return view;
}
