/**
 * The timeline: one lane per worker, per lease key, the database and the destination (each lane
 * kind derives its own lanes and items: ./lanes), drawn by d3 into an SVG React owns. Zoom and
 * pan with d3-zoom (x only); drag the cursor on the time axis; click or right-click a lane to add
 * a fault there; drag fault markers in time (or focus one and use ←/→, Delete). Everything is
 * derived from the cached run: nothing here simulates.
 *
 * This module joins the parts: the scale (./useTimeScale), the layout (./layout), the drawing
 * passes (./controller → ./draw/*, ./faultMarkers), the cursor overlay (./cursor) and scrubbing
 * (./scrub).
 */
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import type { Fault } from '../../sim';
import { indexAtMs, runEndMs, runUpTo, type DerivedRun } from '../store/derive';
import type { LaneRef } from '../store/types';
import { useLockscope, useVisibility } from '../store';
import { fmtSeconds } from '../faults/faultCatalog';
import { lanesOf } from './lanes';
import { layoutLanes, AXIS_H } from './layout';
import { gutterFor, typeScaleFor } from './fit';
import { axisEndMs } from './axisScale';
import { useTimeScale, useTimelineScale } from './useTimeScale';
import { TimelineController } from './controller';
import { faultMarkers, markerBoxesByLane } from './faultMarkers';
import { placeCursor } from './cursor';
import { attachScrub } from './scrub';
import { Patterns } from './Patterns';
import { NOTE_TOP } from './lanes/types';

/** Props of the timeline. */
export interface TimelineProps {
  readonly run: DerivedRun;
  readonly cursorMs: number;
  readonly onCursorMs: (ms: number) => void;
  /** A violation mark was activated: move the cursor to this event. */
  readonly onEventId?: (eventId: string) => void;
  /** Editable faults (omit for a read-only timeline). */
  readonly faults?: readonly Fault[];
  readonly selectedFault?: number | null;
  /** A lane was clicked (or its label activated) at a time: open the fault menu at page position x, y. */
  readonly onLaneActivate?: (lane: LaneRef, atMs: number, pos: { x: number; y: number }) => void;
  readonly onFaultMove?: (index: number, atMs: number) => void;
  readonly onFaultSelect?: (index: number) => void;
  readonly onFaultRemove?: (index: number) => void;
  /** Accessible name of the whole timeline. */
  readonly label: string;
  /** Shared end of the time axis (compare view: both timelines use the same scale). */
  readonly domainEndMs?: number;
  /**
   * The cursor's event index (the store's `cursorIndex`: events at one millisecond are stepped one
   * by one). Where the view hides the future the timeline draws the run only this far
   * (`runUpTo`); without it, the last event at or before `cursorMs`.
   */
  readonly cursorIndex?: number;
  /**
   * A display, not a control (the workshop audience's projector): no zoom tools, no scrubbing, the
   * bookmarks as plain flags; the presenter drives the cursor.
   */
  readonly display?: boolean;
}

/** The bookmarks as numbered flags in the marks row under the time axis (buttons: activating one moves the cursor there). */
function BookmarkMarkers({ x, plotW, gutter, k, top, onCursorMs, display }: { x: (ms: number) => number; plotW: number; gutter: number; k: number; top: number; onCursorMs: (ms: number) => void; display?: boolean }) {
  const bookmarks = useLockscope((s) => s.bookmarks);
  if (bookmarks.length === 0) return null;
  return (
    <div className="bookmark-layer" data-testid="bookmark-markers" style={{ top }}>
      {bookmarks.map((b, i) => {
        const cx = x(b.atMs);
        if (cx < 0 || cx > plotW) return null;
        if (display) return <span key={b.atMs} className="bookmark-marker" style={{ left: gutter + cx * k }} aria-hidden="true"><span>{i + 1}</span></span>;
        return (
          <button
            key={b.atMs}
            type="button"
            className="bookmark-marker"
            style={{ left: gutter + cx * k }}
            aria-label={`Bookmark ${i + 1} at ${fmtSeconds(b.atMs)}${b.note ? `: ${b.note}` : ''}`}
            title={`${fmtSeconds(b.atMs)}${b.note ? ` · ${b.note}` : ''}`}
            onClick={() => onCursorMs(b.atMs)}
          >
            <span aria-hidden="true">{i + 1}</span>
          </button>
        );
      })}
    </div>
  );
}

/** The timeline component. */
export function Timeline(props: TimelineProps) {
  const { run: whole, cursorMs, faults, selectedFault, label, display } = props;
  // The view's mode may hide the findings (violation marks, duplicates) and what is after the cursor:
  // then only the run up to the cursor is drawn, so nothing later is in the page (not only under the curtain).
  const { showFindings, showFuture } = useVisibility();
  const cutAt = showFuture ? null : (props.cursorIndex ?? indexAtMs(whole.events, cursorMs));
  const run = useMemo(() => (cutAt === null ? whole : runUpTo(whole, cutAt)), [whole, cutAt]);
  const uid = useId().replace(/[^a-zA-Z0-9_-]/g, '');
  const wrapRef = useRef<HTMLDivElement>(null);
  const svgRef = useRef<SVGSVGElement>(null);
  const cursorRef = useRef<HTMLDivElement>(null);
  const [ctl] = useState(() => new TimelineController());

  const data = lanesOf(run);
  const { boxes, height } = useMemo(() => layoutLanes(data.lanes), [data]);
  const largeType = useLockscope((s) => s.largeType);
  // Large type, and the view's --timeline-scale (the audience's projector), scale the whole drawing
  // (words, bars, marks) through the SVG's viewBox, and the lane names with it.
  const timelineScale = useTimelineScale(wrapRef);
  const k = typeScaleFor(largeType, timelineScale);
  const GUTTER = useMemo(() => gutterFor(boxes.map((b) => b.label), largeType, timelineScale), [boxes, largeType, timelineScale]);
  // The axis spans the run (and everything the verdict cites), padded to a round figure.
  // Cut at the cursor, the axis keeps the whole run's span (the curtain covers the rest): it does not grow at every step.
  const endMs = useMemo(() => axisEndMs(Math.max(data.endMs, run === whole ? 0 : runEndMs(whole), props.domainEndMs ?? 0), data.violations.map((v) => v.atMs)), [data, run, whole, props.domainEndMs]);
  const { plotW, screenW, x, zoomBy, zoomReset } = useTimeScale(wrapRef, svgRef, GUTTER, 0, endMs, height, k);
  // Handlers bound once (d3) read these when they fire.
  ctl.live = {
    x, plotW,
    onCursorMs: props.onCursorMs, onEventId: props.onEventId, onLaneActivate: props.onLaneActivate,
    onFaultMove: props.onFaultMove, onFaultSelect: props.onFaultSelect, onFaultRemove: props.onFaultRemove,
  };

  // The fault markers' boxes: the lanes' words and the cursor notes keep clear of them.
  // (The faults are the user's own edits: placed by the whole run, cut or not.)
  const markerBoxes = useMemo(() => markerBoxesByLane(faults ?? [], whole, boxes, x, plotW), [faults, whole, boxes, x, plotW]);

  // Draw the lanes (on run, size or zoom changes; never on cursor moves).
  useEffect(() => {
    const svg = svgRef.current;
    if (!svg) return;
    ctl.drawLanes(svg, { boxes, violations: data.violations, x, plotW, height, uid, markerBoxes, showFindings });
  }, [ctl, data, boxes, x, plotW, height, uid, showFindings, markerBoxes]);

  // Fault markers (keyed join so a focused marker keeps focus across re-runs).
  useEffect(() => {
    const svg = svgRef.current;
    if (!svg) return;
    ctl.drawFaults(svg, faultMarkers(faults ?? [], whole, boxes), x, plotW, selectedFault ?? null);
  }, [ctl, faults, whole, boxes, x, plotW, selectedFault]);

  // Axis scrubbing: drag on the axis strip or the cursor handle.
  useEffect(() => {
    const svg = svgRef.current;
    if (!svg || display) return;
    attachScrub(svg, cursorRef.current, plotW, () => ctl.live.x, (ms) => ctl.live.onCursorMs(ms));
  }, [ctl, plotW, data, display]);

  // Cursor (cheap: an HTML overlay on its own compositor layer moves; the SVG is not repainted).
  useEffect(() => {
    const el = cursorRef.current;
    if (el) placeCursor(el, cursorMs, x, plotW, GUTTER, boxes, k, svgRef.current?.querySelector('g.axis') ?? null, markerBoxes);
  }, [cursorMs, x, plotW, boxes, GUTTER, showFuture, k, markerBoxes]);

  return (
    <div className="timeline" ref={wrapRef}>
      {!display && <div className="timeline-tools" role="toolbar" aria-label={`${label} zoom`}>
        <button type="button" onClick={() => zoomBy(2, Math.max(0, x(cursorMs)))} aria-label="Zoom in around the cursor">+</button>
        <button type="button" onClick={() => zoomBy(0.5, Math.max(0, x(cursorMs)))} aria-label="Zoom out">−</button>
        <button type="button" onClick={zoomReset}>Fit</button>
        <span className="hint">Drag the time axis to scrub · wheel to zoom · drag to pan{props.onLaneActivate ? ' · click a lane to inject a fault' : ''}</span>
      </div>}
      <div className="timeline-body" style={{ height: height * k }}>
        <div className="lane-labels" style={{ width: GUTTER }}>
          {/* What the marks row (between the axis and the lanes) holds, said beside it. */}
          <span className="marks-note" style={{ top: (AXIS_H + 4) * k }}>{!showFindings ? 'verdict hidden' : data.violations.some((v) => v.severity === 'violation') ? 'violations ▸' : data.violations.length ? 'notes, no violation ▸' : 'no violation'}</span>
          {boxes.map((b) => (
            props.onLaneActivate ? (
              <button
                key={b.id}
                type="button"
                className={`lane-label lane-${b.ref.kind}`}
                style={{ top: b.y * k, height: b.h * k }}
                aria-label={`${b.label}: add a fault at the cursor (${fmtSeconds(cursorMs)})`}
                title={`${b.ariaLabel}. Activate to add a fault at the cursor.`}
                onClick={(e) => {
                  const r = (e.currentTarget as HTMLElement).getBoundingClientRect();
                  props.onLaneActivate?.(b.ref, cursorMs, { x: r.right + window.scrollX, y: r.top + window.scrollY });
                }}
              >
                {b.label}<span aria-hidden="true" className="plus">+</span>
              </button>
            ) : (
              <span key={b.id} className={`lane-label lane-${b.ref.kind}`} style={{ top: b.y * k, height: b.h * k }}>{b.label}</span>
            )
          ))}
        </div>
        <svg
          ref={svgRef}
          className="timeline-svg"
          width={screenW}
          height={height * k}
          viewBox={`0 0 ${plotW} ${height}`}
          role="group"
          aria-label={`${label}: ${boxes.length} lanes ${run.shownToMs === undefined ? `over ${fmtSeconds(data.endMs)}` : `up to ${fmtSeconds(run.shownToMs)}, the rest hidden`}`}
          onContextMenu={(e) => e.preventDefault()}
        >
          <Patterns uid={uid} />
          {/* Bars and words stay inside the plot, zoomed in too (fault markers may reach 14 units out, to stay whole at the edges). */}
          <clipPath id={`${uid}-plot`}><rect x={0} y={0} width={plotW} height={height} /></clipPath>
          <clipPath id={`${uid}-marks`}><rect x={-14} y={0} width={plotW + 28} height={height} /></clipPath>
          <g className="lanes-bg" clipPath={`url(#${uid}-plot)`} />
          <g className="content" clipPath={`url(#${uid}-plot)`} />
          <g className="axis" transform={`translate(0,${AXIS_H - 4})`} />
          <rect className="scrub-strip no-zoom" x={0} y={0} width={plotW} height={AXIS_H} fill="transparent" style={{ cursor: 'ew-resize' }} />
          <g className="faults" clipPath={`url(#${uid}-marks)`} />
        </svg>
        <BookmarkMarkers x={x} plotW={plotW} gutter={GUTTER} k={k} top={(AXIS_H + 1) * k} onCursorMs={props.onCursorMs} display={display} />
        <div className="cursor-overlay" ref={cursorRef} style={{ height: height * k }}>
          {!showFuture && <div className="curtain" data-testid="curtain" style={{ top: AXIS_H * k }} title="Hidden until the end: predict what happens next" />}
          <div className="cursor-line" />
          <div
            style={{ height: AXIS_H * k }}
            className="cursor-grip"
            role="slider"
            tabIndex={-1}
            aria-label="Cursor time"
            aria-valuemin={0}
            aria-valuemax={endMs}
            aria-valuenow={0}
          />
          <span className="cursor-time" aria-hidden="true" />
          {boxes.map((b) => b.note && (
            <span key={b.id} className={b.note.className} data-note={b.id} style={{ top: (b.y + b.h - NOTE_TOP) * k }} aria-hidden="true" />
          ))}
        </div>
      </div>
    </div>
  );
}
