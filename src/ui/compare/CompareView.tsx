/**
 * Compare: two mechanisms side by side under the same faults, cursor synchronised by time, with
 * the simulator's transport. Left: the current scenario. Right: the preset's other variant, or
 * the current scenario with one switch flipped. Faults injected on either timeline apply to both.
 * Each side is named by what it is (a preset variant, or "your edited mechanism") and by the
 * switches that differ. Above them, what differs from left to right — every difference of the
 * setups (`setupChanges`: switches, the job's steps, settings), with the preset's fix in its own
 * words when the sides are its two variants. Whether the two runs are "identical" is decided from
 * the traces (`sameRun`), never from the mechanism: two equal setups say so and suggest another
 * right-hand side; two setups that differ but run the same trace say that the difference changes
 * nothing in this run.
 */
import { useFaultEditing } from '../timeline/useFaultEditing';
import { findPreset, fmtTime } from '../../sim';
import { useSwitchStatuses } from '../mechanism/useSwitchStatuses';
import { useLockscope, useLockscopeStore, useRun, deriveRun, indexOfEvent, runEndMs } from '../store';
import { alignedIndex, compareClaim, compareScenario, differences, otherVariantOf } from './compareScenario';
import { Timeline } from '../timeline/Timeline';
import { Transport } from '../timeline/Transport';
import { VerdictPanel } from '../verdict/VerdictPanel';
import { Inspector } from '../inspector/Inspector';
import { flipSwitch, relevantSwitches, switchValueText } from '../mechanism/switches';
import { matchVariant, variantName } from '../mechanism/variant';
import type { DerivedRun } from '../store/derive';
import { CopyLink } from '../share/SharePanel';
import { HideVerdictToggle } from '../verdict/HideVerdictToggle';
import { firstDivergence } from './divergence';

/**
 * A sentence quoted inside another: without its final full stop, which the sentence around it
 * supplies ("left “… no reply yet”; right “…”." — not "yet.”; … token.”.").
 */
export function quoted(sentence: string): string {
  return sentence.replace(/\.\s*$/, '');
}

/** The compare view (reads and writes the store). */
export function CompareView() {
  const left = useRun();
  const composed = useLockscope((s) => s.composed);
  const presetId = useLockscope((s) => s.presetId);
  const variant = useLockscope((s) => s.variant);
  const target = useLockscope((s) => s.compareTarget);
  const cursorMs = useLockscope((s) => s.cursorMs);
  const cursorIndex = useLockscope((s) => s.cursorIndex);
  const setCompareTarget = useLockscope((s) => s.setCompareTarget);
  const right = deriveRun(compareScenario(composed, presetId, variant, target));
  const st = useLockscopeStore().getState();
  const preset = presetId ? findPreset(presetId) : undefined;

  const leftDiff = differences(left.scenario, right.scenario);
  const rightDiff = differences(right.scenario, left.scenario);
  // Every difference of the setups, left → right (switches, steps, settings), and whether the runs are one run.
  const { changes, identical, sameSetup } = compareClaim(left, right);
  const leftVariant = matchVariant(composed, preset);
  const leftName = variantName(leftVariant);
  const other = otherVariantOf(composed, presetId, variant);
  const rightName = target.kind === 'otherVariant'
    ? (preset ? variantName(other) : 'The same scenario')
    : `Left with one switch flipped`;
  // The preset's fix in its author's words, when the two sides are its two variants.
  const fixWords = preset && target.kind === 'otherVariant' && leftVariant !== null && changes.length > 0 ? preset.fix : null;
  // The switches on each side; steps and settings that differ are listed once, above both sides.
  const others = [...new Set(changes.filter((c) => c.kind !== 'switch').map((c) => (c.kind === 'steps' || c.kind === 'workers' ? 'steps' : c.kind === 'faults' ? 'faults' : 'settings')))];
  const otherWords = others.length > 0 ? `different ${others.join(' and ')} (listed above)` : '';
  const sideWords = (d: readonly string[]) => [...d, ...(otherWords ? [otherWords] : [])].join('; ');
  const leftCaption = `Left: ${leftName}${sameSetup ? '' : ` — ${sideWords(leftDiff)}`}`;
  const rightCaption = sameSetup ? `Right: ${rightName} — the same scenario as the left`
    : `Right: ${rightName} — ${sideWords(rightDiff)}${identical ? ' (the same run as the left)' : ''}`;

  const editing = useFaultEditing();

  const side = (run: DerivedRun, caption: string, which: string) => {
    // The left side is the store's run: its event is the cursor's; the right follows by time, and
    // describes that time as the left does (before the first event on both at Home).
    const idx = which === 'left' ? cursorIndex : alignedIndex(left.events, cursorIndex, cursorMs, run.events);
    const goto = (id: string) => {
      st.setPlaying(false);
      st.setCursorMs(run.events[indexOfEvent(run, id)]?.atMs ?? 0);
    };
    return (
      <div className="compare-side" data-testid={`compare-${which}`}>
        <VerdictPanel run={run} caption={caption} onEventId={goto} />
        <Timeline
          run={run}
          label={`Timeline (${which})`}
          domainEndMs={Math.max(runEndMs(left), runEndMs(right))}
          cursorMs={cursorMs}
          onEventId={goto}
          {...editing}
        />
        <Inspector run={run} index={idx} cursorMs={cursorMs} title={`World at the cursor (${which})`} />
      </div>
    );
  };

  const switches = relevantSwitches(composed);
  const diverge = identical ? null : firstDivergence(left.events, right.events);
  const at = diverge ? (diverge.left ?? diverge.right)!.atMs : 0;
  const atCursor = diverge !== null && (diverge.left ? cursorIndex === diverge.leftIndex : cursorMs === at);
  // A "left, but …" whose flip changes nothing would show two identical runs: offered disabled, with
  // why. The switch statuses (computed after the frame, shared with the mechanism panel) say it.
  const statuses = useSwitchStatuses(composed);
  const flipIsIdle = (id: string) => {
    const st = statuses?.get(id);
    if (!st) return false;
    const d = switches.find((x) => x.id === id);
    return !st.enabled || (d !== undefined && !st.changing.includes(String(d.get(flipSwitch(composed, id)))));
  };
  const suggestion = switches.find((d) => d.id === 'fencing' && !flipIsIdle(d.id)) ?? switches.find((d) => !flipIsIdle(d.id));
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
          <option value="other">{preset ? `The preset ${other === 'with' ? 'with' : 'without'} the fix` : 'The same scenario'}</option>
          {switches.map((d) => {
            const idle = flipIsIdle(d.id) && !(target.kind === 'switch' && target.switchId === d.id);
            return <option key={d.id} value={d.id} disabled={idle}>Left, but {switchValueText(flipSwitch(composed, d.id), d.id)}{idle ? ' — no effect in this run' : ''}</option>;
          })}
        </select>
        <HideVerdictToggle />
        <CopyLink compact />
      </div>
      {sameSetup && (
        <p className="same-note" role="status" data-testid="same-mechanism">
          Both sides run the same scenario, so both runs are identical. Pick a different right-hand side above
          {suggestion ? <> — for example <button type="button" className="link" onClick={() => setCompareTarget({ kind: 'switch', switchId: suggestion.id })}>flip {suggestion.short ?? suggestion.label}</button></> : null}.
        </p>
      )}
      {changes.length > 0 && (
        <div className={identical ? 'same-note compare-diff' : 'compare-diff'} role="status" data-testid="compare-diff">
          <p>
            {fixWords ? <><strong>The fix ({leftVariant === 'without' ? 'on the right' : 'on the left'}):</strong> {fixWords}. </> : null}
            <strong>What differs, left → right:</strong>
          </p>
          <ul>{changes.map((c) => <li key={c.text}>{c.text}</li>)}</ul>
          {identical && <p data-testid="same-run">In this run that changes nothing: both traces are identical, event for event. Inject a fault (or pick another right-hand side) to see the difference matter.</p>}
        </div>
      )}
      {diverge && (
        <p className={`divergence${atCursor ? ' at-cursor' : ''}`} data-testid="divergence">
          <strong>The runs first differ at {fmtTime(at)}</strong> (left event {diverge.leftIndex + 1}, right event {diverge.rightIndex + 1}):{' '}
          left {diverge.left ? <q>{quoted(diverge.left.narration)}</q> : 'has nothing here'}; right {diverge.right ? <q>{quoted(diverge.right.narration)}</q> : 'has nothing here'}.{' '}
          {!atCursor && <button type="button" className="link" onClick={() => { st.setPlaying(false); if (diverge.left) st.setCursorIndex(diverge.leftIndex); else st.setCursorMs(at); }}>Go there</button>}
        </p>
      )}
      <Transport />
      <div className="compare-grid">
        {side(left, leftCaption, 'left')}
        {side(right, rightCaption, 'right')}
      </div>
    </main>
  );
}
