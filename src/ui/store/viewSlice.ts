/** View slice: which screen is shown, large type for projectors, the compare target and the fault menu. */
import type { Slice, ViewSlice } from './types';

/** Creates the view slice. */
export const createViewSlice: Slice<ViewSlice> = (set) => ({
  view: 'catalogue',
  largeType: false,
  compareTarget: { kind: 'otherVariant' },
  faultMenu: null,
  setView(view) {
    set({ view, faultMenu: null, playing: false });
  },
  setLargeType(largeType) {
    set({ largeType });
  },
  setCompareTarget(compareTarget) {
    set({ compareTarget });
  },
  openFaultMenu(faultMenu) {
    set({ faultMenu });
  },
  closeFaultMenu() {
    set({ faultMenu: null });
  },
});
