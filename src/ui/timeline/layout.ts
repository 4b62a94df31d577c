/** Vertical layout of the timeline: each lane's y, top to bottom below the axis and the marks row. Shared by the SVG and the HTML lane labels. */
import type { Lane } from './lanes';

/** A lane placed on the timeline. */
export interface LaneBox extends Lane {
  /** Top of the lane, px from the top of the SVG. */
  readonly y: number;
}

export const AXIS_H = 30;
export const MARKS_H = 26;

/** Lays out the lanes top to bottom in the given order, 4 px apart. */
export function layoutLanes(lanes: readonly Lane[]): { boxes: LaneBox[]; height: number } {
  const boxes: LaneBox[] = [];
  let y = AXIS_H + MARKS_H;
  for (const lane of lanes) {
    boxes.push({ ...lane, y });
    y += lane.h + 4;
  }
  return { boxes, height: y + 4 };
}
