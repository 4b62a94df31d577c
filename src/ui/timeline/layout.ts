/** Vertical layout of the timeline: which lanes exist, their labels, y and height. Shared by the SVG and the HTML lane labels. */
import type { Lanes } from './lanes';
import type { LaneRef } from '../store/types';

/** One laid-out lane. */
export interface LaneBox {
  readonly id: string;
  readonly ref: LaneRef;
  readonly label: string;
  /** Longer name for screen readers. */
  readonly ariaLabel: string;
  readonly y: number;
  readonly h: number;
}

export const AXIS_H = 30;
export const MARKS_H = 26;
export const ROW_H = 20;

/** Lays out the lanes top to bottom: workers, lease keys, database, destination. */
export function layoutLanes(lanes: Lanes, destinationLabel: string): { boxes: LaneBox[]; height: number } {
  const boxes: LaneBox[] = [];
  let y = AXIS_H + MARKS_H;
  const add = (b: Omit<LaneBox, 'y'>) => {
    boxes.push({ ...b, y });
    y += b.h + 4;
  };
  for (const w of lanes.workers) add({ id: `worker-${w.id}`, ref: { kind: 'worker', worker: w.id }, label: `Worker ${w.id}`, ariaLabel: `Worker ${w.id}: machine states over time`, h: 34 });
  for (const l of lanes.leases) add({ id: `lease-${l.key}`, ref: { kind: 'lease', key: l.key }, label: l.key, ariaLabel: `Lease ${l.key}: owner and fencing token over time`, h: 36 });
  add({ id: 'database', ref: { kind: 'database' }, label: 'Database', ariaLabel: 'Database: locks held and waited for, rows written, errors', h: Math.max(34, lanes.lockRows * ROW_H + 14) });
  add({ id: 'destination', ref: { kind: 'destination' }, label: destinationLabel, ariaLabel: 'Destination: writes accepted, rejected as stale, duplicates', h: Math.max(34, lanes.writeRows * ROW_H + 14) });
  return { boxes, height: y + 4 };
}
