/**
 * The Timeline props that edit faults through the store, shared by the simulator and the
 * compare view: the faults, the selected one, and the handlers for clicking a lane (opens the
 * fault menu), dragging, selecting and removing a marker, and scrubbing (which stops playback).
 */
import { useCallback } from 'react';
import { useLockscope, useLockscopeStore } from '../store';
import { withTime } from '../faults/faultCatalog';
import type { LaneRef } from '../store/types';

/** Spread into <Timeline {...useFaultEditing()} />. */
export function useFaultEditing() {
  const store = useLockscopeStore();
  const faults = useLockscope((s) => s.faults);
  const selectedFault = useLockscope((s) => s.selectedFault);
  const onLaneActivate = useCallback((lane: LaneRef, atMs: number, pos: { x: number; y: number }) => store.getState().openFaultMenu({ lane, atMs, x: pos.x, y: pos.y }), [store]);
  const onFaultMove = useCallback((i: number, ms: number) => {
    const s = store.getState();
    const f = s.faults[i];
    if (f) s.updateFault(i, withTime(f, ms));
  }, [store]);
  const onCursorMs = useCallback((ms: number) => {
    const s = store.getState();
    s.setPlaying(false);
    s.setCursorMs(ms);
  }, [store]);
  const st = store.getState();
  return { faults, selectedFault, onLaneActivate, onFaultMove, onFaultSelect: st.selectFault, onFaultRemove: st.removeFault, onCursorMs };
}
