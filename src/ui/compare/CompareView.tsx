/**
 * Compare: two mechanisms side by side under the same faults, cursor synchronised by time.
 * Left: the current scenario. Right: the preset's other variant, or the current scenario with
 * one switch flipped. Faults injected on either timeline apply to both.
 */
import { useCallback } from 'react';
import { useLockscope, useRun, deriveRun, indexAtMs, indexOfEvent, runEndMs } from '../store';
import { compareScenario, differences } from './compareScenario';
import { Timeline } from '../timeline/Timeline';
import { VerdictPanel } from '../verdict/VerdictPanel';
import { Inspector } from '../inspector/Inspector';
import { relevantSwitches } from '../mechanism/switches';
import type { DerivedRun } from '../store/derive';
import type { LaneRef } from '../store/types';
import { withTime } from '../faults/faultCatalog';
import { CopyLink } from '../share/SharePanel';

/** The compare view (reads and writes the store). */
export function CompareView() {
  const left = useRun();
  const composed = useLockscope((s) => s.composed);
  const presetId = useLockscope((s) => s.presetId);
  const variant = useLockscope((s) => s.variant);
  const target = useLockscope((s) => s.compareTarget);
  const cursorMs = useLockscope((s) => s.cursorMs);
  const faults = useLockscope((s) => s.faults);
  const selectedFault = useLockscope((s) => s.selectedFault);
  const setCompareTarget = useLockscope((s) => s.setCompareTarget);
  const right = deriveRun(compareScenario(composed, presetId, variant, target));
  const st = useLockscope.getState();

  const leftDiff = differences(left.scenario, right.scenario);
  const rightDiff = differences(right.scenario, left.scenario);
  const leftCaption = `${variant === 'with' ? 'With the fix' : 'Without the fix'} (current)${leftDiff.length ? ` — ${leftDiff.join('; ')}` : ''}`;
  const rightCaption = `${target.kind === 'otherVariant' ? (variant === 'with' ? 'Without the fix' : 'With the fix') : 'One switch flipped'}${rightDiff.length ? ` — ${rightDiff.join('; ')}` : ' — same mechanism'}`;

  const onLane = useCallback((lane: LaneRef, atMs: number, pos: { x: number; y: number }) => useLockscope.getState().openFaultMenu({ lane, atMs, x: pos.x, y: pos.y }), []);
  const onFaultMove = useCallback((i: number, ms: number) => {
    const s = useLockscope.getState();
    const f = s.faults[i];
    if (f) s.updateFault(i, withTime(f, ms));
  }, []);

  const side = (run: DerivedRun, caption: string, which: string) => {
    const idx = indexAtMs(run.events, cursorMs);
    return (
      <div className="compare-side" data-testid={`compare-${which}`}>
        <VerdictPanel run={run} caption={caption} onEventId={(id) => st.setCursorMs(run.events[indexOfEvent(run, id)]?.atMs ?? 0)} />
        <Timeline
          run={run}
          label={`Timeline (${which})`}
          domainEndMs={Math.max(runEndMs(left), runEndMs(right))}
          cursorMs={cursorMs}
          onCursorMs={st.setCursorMs}
          onEventId={(id) => st.setCursorMs(run.events[indexOfEvent(run, id)]?.atMs ?? 0)}
          faults={faults}
          selectedFault={selectedFault}
          onLaneActivate={onLane}
          onFaultMove={onFaultMove}
          onFaultSelect={st.selectFault}
          onFaultRemove={st.removeFault}
        />
        <Inspector run={run} index={idx} cursorMs={cursorMs} title={`World at the cursor (${which})`} />
      </div>
    );
  };

  const switches = relevantSwitches(composed);
  return (
    <main className="compare" id="main" tabIndex={-1}>
      <div className="compare-bar">
        <h1>Compare under the same faults</h1>
        <label htmlFor="compare-target">Right-hand side</label>
        <select
          id="compare-target"
          value={target.kind === 'otherVariant' ? 'other' : target.switchId}
          onChange={(e) => setCompareTarget(e.target.value === 'other' ? { kind: 'otherVariant' } : { kind: 'switch', switchId: e.target.value })}
        >
          <option value="other">The preset {variant === 'with' ? 'without' : 'with'} the fix</option>
          {switches.map((d) => <option key={d.id} value={d.id}>Current, flip: {d.label}</option>)}
        </select>
        <CopyLink compact />
      </div>
      <div className="compare-grid">
        {side(left, leftCaption, 'left')}
        {side(right, rightCaption, 'right')}
      </div>
    </main>
  );
}
