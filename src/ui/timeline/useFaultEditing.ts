/**
 * The Timeline props that edit faults through the store, shared by the simulator and the
 * compare view: the faults, the selected one, and the handlers for clicking a lane (opens the
 * fault menu), dragging, selecting and removing a marker, and scrubbing (which stops playback).
 */
import { useCallback } from 'react';
import { useLockscope } from '../store';
import { withTime } from '../faults/faultCatalog';
import type { LaneRef } from '../store/types';

/** Spread into <Timeline {...useFaultEditing()} />. */
export function useFaultEditing() {
  const faults = useLockscope((s) => s.faults);
  const selectedFault = useLockscope((s) => s.selectedFault);
  const onLaneActivate = useCallback((lane: LaneRef, atMs: number, pos: { x: number; y: number }) => useLockscope.getState().openFaultMenu({ lane, atMs, x: pos.x, y: pos.y }), []);
  const onFaultMove = useCallback((i: number, ms: number) => {
    const s = useLockscope.getState();
    const f = s.faults[i];
    if (f) s.updateFault(i, withTime(f, ms));
  }, []);
  const onCursorMs = useCallback((ms: number) => {
    const s = useLockscope.getState();
    s.setPlaying(false);
    s.setCursorMs(ms);
  }, []);
  const st = useLockscope.getState();
  return { faults, selectedFault, onLaneActivate, onFaultMove, onFaultSelect: st.selectFault, onFaultRemove: st.removeFault, onCursorMs };
}
