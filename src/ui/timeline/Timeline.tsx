/**
 * The timeline: one lane per worker, per lease key, the database and the destination, drawn by d3
 * into an SVG React owns. Zoom and pan with d3-zoom (x only); drag the cursor on the time axis;
 * click or right-click a lane to add a fault there; drag fault markers in time (or focus one and
 * use ←/→, Delete). Everything is derived from the cached run: nothing here simulates.
 */
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import * as d3 from 'd3';
import type { Fault } from '../../sim';
import type { DerivedRun } from '../store/derive';
import type { LaneRef } from '../store/types';
import { useLockscope, useVisibility } from '../store';
import { buildLanes, STATE_TEXT, type Lanes } from './lanes';
import { layoutLanes, AXIS_H, MARKS_H, ROW_H, type LaneBox } from './layout';
import { STATE_FILL, STATE_PATTERN, textOn } from './style';
import { describeFault, faultGlyph, faultTimeMs, fmtSeconds, laneOfFault } from '../faults/faultCatalog';

const lanesCache = new WeakMap<DerivedRun, Lanes>();
/** Lanes of a run, memoised per run object. */
export function lanesOf(run: DerivedRun): Lanes {
  let l = lanesCache.get(run);
  if (!l) lanesCache.set(run, (l = buildLanes(run)));
  return l;
}

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
}

/**
 * Width of the lane-name gutter: enough for the longest name in the current type size (bold
 * 0.875rem ≈ 0.6 em per character, plus the "+" and padding), never less than 128 px.
 */
function gutterFor(labels: readonly string[], largeType: boolean): number {
  const px = (largeType ? 20 : 16) * 0.875;
  const longest = Math.max(0, ...labels.map((l) => l.length));
  return Math.max(128, Math.ceil(longest * px * 0.62 + px * 2.4));
}

function sameLane(a: LaneRef, b: LaneRef): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'worker' && b.kind === 'worker') return a.worker === b.worker;
  return true;
}

/** The timeline component. */
export function Timeline(props: TimelineProps) {
  const { run, cursorMs, faults, selectedFault, label } = props;
  // The view's mode may hide the findings (violation marks, duplicates) and what is after the cursor.
  const { showFindings, showFuture } = useVisibility();
  const uid = useId().replace(/[^a-zA-Z0-9_-]/g, '');
  const wrapRef = useRef<HTMLDivElement>(null);
  const svgRef = useRef<SVGSVGElement>(null);
  const [width, setWidth] = useState(800);
  const [transform, setTransform] = useState<d3.ZoomTransform>(d3.zoomIdentity);
  const zoomRef = useRef<d3.ZoomBehavior<SVGSVGElement, unknown> | null>(null);
  const cursorRef = useRef<HTMLDivElement>(null);
  const cb = useRef(props);
  cb.current = props;

  const lanes = lanesOf(run);
  const destLabel = run.scenario.destination.kind === 'file' ? 'File store' : 'External API';
  const { boxes, height } = useMemo(() => layoutLanes(lanes, destLabel), [lanes, destLabel]);
  const largeType = useLockscope((s) => s.largeType);
  const GUTTER = useMemo(() => gutterFor(boxes.map((b) => b.label), largeType), [boxes, largeType]);
  const plotW = Math.max(200, width - GUTTER - 8);
  const endMs = Math.max(lanes.endMs, props.domainEndMs ?? 0);
  const x = useMemo(() => transform.rescaleX(d3.scaleLinear().domain([0, endMs]).range([0, plotW - 14])), [transform, endMs, plotW]);
  const xRef = useRef(x);
  xRef.current = x;

  // Width follows the container.
  useEffect(() => {
    const el = wrapRef.current;
    if (!el) return;
    const ro = new ResizeObserver((entries) => {
      const w = Math.round(entries[0]?.contentRect.width ?? 800);
      if (w > 0) setWidth(w);
    });
    ro.observe(el);
    setWidth(el.clientWidth || 800);
    return () => ro.disconnect();
  }, []);

  // Zoom and pan, x only.
  useEffect(() => {
    const svg = svgRef.current;
    if (!svg) return;
    const zoom = d3.zoom<SVGSVGElement, unknown>()
      .scaleExtent([1, 400])
      .translateExtent([[0, 0], [plotW, height]])
      .extent([[0, 0], [plotW, height]])
      .filter((event: Event) => {
        const t = event.target as Element;
        if (t.closest('.no-zoom')) return false;
        return (!(event as MouseEvent).button || event.type === 'wheel') && !(event as MouseEvent).ctrlKey;
      })
      .on('zoom', (event: d3.D3ZoomEvent<SVGSVGElement, unknown>) => setTransform(event.transform));
    zoomRef.current = zoom;
    d3.select(svg).call(zoom).on('dblclick.zoom', null);
    return () => {
      d3.select(svg).on('.zoom', null);
    };
  }, [plotW, height]);

  // Reset the zoom when the scenario's length changes.
  useEffect(() => {
    const svg = svgRef.current;
    if (svg && zoomRef.current) d3.select(svg).call(zoomRef.current.transform, d3.zoomIdentity);
  }, [endMs]);

  // Draw the lanes (on run, size or zoom changes; never on cursor moves).
  useEffect(() => {
    const svg = svgRef.current;
    if (!svg) return;
    const markerXs = new Map<string, number[]>();
    (faults ?? []).forEach((f, i) => {
      const lane = laneOfFault(f, run.scenario);
      const box = boxes.find((b) => sameLane(b.ref, lane));
      const ms = faultTimeMs(f, i, run);
      if (box && ms !== null) markerXs.set(box.id, [...(markerXs.get(box.id) ?? []), Math.max(0, Math.min(plotW, x(ms)))]);
    });
    drawLanes(svg, { lanes, boxes, x, plotW, height, uid, run, showFindings, markerXs, xNow: () => xRef.current, onLane: (lane, ms, pos) => cb.current.onLaneActivate?.(lane, ms, pos), onEventId: (id) => cb.current.onEventId?.(id) });
  }, [lanes, boxes, x, plotW, height, uid, run, showFindings, faults]);

  // Fault markers (keyed join so a focused marker keeps focus across re-runs).
  useEffect(() => {
    const svg = svgRef.current;
    if (!svg) return;
    drawFaults(svg, { faults: faults ?? [], run, boxes, x, plotW, selected: selectedFault ?? null, cb });
  }, [faults, run, boxes, x, plotW, selectedFault]);

  // Axis scrubbing: drag on the axis strip or the cursor handle.
  useEffect(() => {
    const svg = svgRef.current;
    if (!svg) return;
    const drag = d3.drag<SVGElement, unknown>()
      .container(svg)
      .subject((event: d3.D3DragEvent<SVGElement, unknown, unknown>) => ({ x: event.x, y: event.y }))
      .on('start drag', (event: d3.D3DragEvent<SVGElement, unknown, unknown>) => {
        const ms = xRef.current.invert(Math.max(0, Math.min(plotW, event.x)));
        cb.current.onCursorMs(Math.round(ms));
      });
    d3.select(svg).selectAll<SVGElement, unknown>('.scrub-strip').call(drag);
    if (cursorRef.current) d3.select(cursorRef.current).selectAll<SVGElement, unknown>('.cursor-grip').call(drag as unknown as d3.DragBehavior<SVGElement, unknown, unknown>);
  }, [plotW, lanes]);

  // Cursor (cheap: an HTML overlay on its own compositor layer moves; the SVG is not repainted).
  useEffect(() => {
    const el = cursorRef.current;
    if (!el) return;
    const cx = x(cursorMs);
    const visible = cx >= 0 && cx <= plotW;
    el.style.transform = `translateX(${GUTTER + cx}px)`;
    const curtain = el.querySelector<HTMLElement>('.curtain');
    if (curtain) curtain.style.width = `${Math.max(0, plotW - cx) + 8}px`;
    el.style.visibility = visible ? 'visible' : 'hidden';
    const grip = el.querySelector<HTMLElement>('.cursor-grip');
    grip?.setAttribute('aria-valuenow', String(Math.round(cursorMs)));
    grip?.setAttribute('aria-valuetext', fmtSeconds(cursorMs));
    const time = el.querySelector<HTMLElement>('.cursor-time');
    if (time) {
      time.textContent = fmtSeconds(cursorMs);
      time.classList.toggle('flip', cx > plotW - 60);
    }
    for (const b of boxes) {
      if (b.ref.kind !== 'lease') continue;
      const label = el.querySelector<HTMLElement>(`[data-ttl="${b.id}"]`);
      if (!label) continue;
      const segs = lanes.leases.find((l) => b.ref.kind === 'lease' && l.key === b.ref.key)?.segments ?? [];
      const seg = segs.find((sg) => sg.startMs <= cursorMs && cursorMs < sg.endMs);
      label.textContent = !seg ? 'free' : seg.expiresAtMs === null ? `${seg.owner}: no TTL` : `${seg.owner}: TTL ${fmtSeconds(Math.max(0, seg.expiresAtMs - cursorMs))}`;
      label.classList.toggle('flip', cx > plotW - 110);
    }
  }, [cursorMs, x, plotW, boxes, lanes, GUTTER, showFuture]);

  const zoomBy = (k: number) => {
    const svg = svgRef.current;
    if (svg && zoomRef.current) d3.select(svg).transition().duration(0).call(zoomRef.current.scaleBy, k, [Math.max(0, x(cursorMs)), 0]);
  };
  const zoomReset = () => {
    const svg = svgRef.current;
    if (svg && zoomRef.current) d3.select(svg).call(zoomRef.current.transform, d3.zoomIdentity);
  };

  return (
    <div className="timeline" ref={wrapRef}>
      <div className="timeline-tools" role="toolbar" aria-label={`${label} zoom`}>
        <button type="button" onClick={() => zoomBy(2)} aria-label="Zoom in around the cursor">+</button>
        <button type="button" onClick={() => zoomBy(0.5)} aria-label="Zoom out">−</button>
        <button type="button" onClick={zoomReset}>Fit</button>
        <span className="hint">Drag the time axis to scrub · wheel to zoom · drag to pan{props.onLaneActivate ? ' · click a lane to inject a fault' : ''}</span>
      </div>
      <div className="timeline-body" style={{ height }}>
        <div className="lane-labels" style={{ width: GUTTER }}>
          {/* What the marks row (between the axis and the lanes) holds, said beside it. */}
          <span className="marks-note" style={{ top: AXIS_H + 4 }}>{!showFindings ? 'verdict hidden' : lanes.violations.length ? 'violations ▸' : 'no violation'}</span>
          {boxes.map((b) => (
            props.onLaneActivate ? (
              <button
                key={b.id}
                type="button"
                className={`lane-label lane-${b.ref.kind}`}
                style={{ top: b.y, height: b.h }}
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
              <span key={b.id} className={`lane-label lane-${b.ref.kind}`} style={{ top: b.y, height: b.h }}>{b.label}</span>
            )
          ))}
        </div>
        <svg
          ref={svgRef}
          className="timeline-svg"
          width={plotW}
          height={height}
          role="group"
          aria-label={`${label}: ${boxes.length} lanes over ${fmtSeconds(lanes.endMs)}`}
          onContextMenu={(e) => e.preventDefault()}
        >
          <defs>
            <pattern id={`${uid}-hatch`} width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
              <rect width="8" height="8" fill="transparent" />
              <line x1="0" y1="0" x2="0" y2="8" stroke="#ffffff" strokeWidth="3" strokeOpacity="0.55" />
            </pattern>
            <pattern id={`${uid}-dots`} width="6" height="6" patternUnits="userSpaceOnUse">
              <circle cx="3" cy="3" r="1.3" fill="#343a40" />
            </pattern>
            <pattern id={`${uid}-cross`} width="8" height="8" patternUnits="userSpaceOnUse">
              <path d="M0,0 L8,8 M8,0 L0,8" stroke="#ffffff" strokeWidth="1.5" strokeOpacity="0.7" />
            </pattern>
            <pattern id={`${uid}-dup`} width="10" height="10" patternUnits="userSpaceOnUse" patternTransform="rotate(-45)">
              <rect width="10" height="10" fill="#b91c1c" />
              <line x1="0" y1="0" x2="0" y2="10" stroke="#ffffff" strokeWidth="4" strokeOpacity="0.5" />
            </pattern>
          </defs>
          <g className="lanes-bg" />
          <g className="content" />
          <g className="axis" transform={`translate(0,${AXIS_H - 4})`} />
          <rect className="scrub-strip no-zoom" x={0} y={0} width={plotW} height={AXIS_H} fill="transparent" style={{ cursor: 'ew-resize' }} />
          <g className="faults" />
        </svg>
        <div className="cursor-overlay" ref={cursorRef} style={{ height }}>
          {!showFuture && <div className="curtain" data-testid="curtain" style={{ top: AXIS_H }} title="Hidden until the end: predict what happens next" />}
          <div className="cursor-line" />
          <div
            className="cursor-grip"
            role="slider"
            tabIndex={-1}
            aria-label="Cursor time"
            aria-valuemin={0}
            aria-valuemax={endMs}
            aria-valuenow={0}
          />
          <span className="cursor-time" aria-hidden="true" />
          {boxes.filter((b) => b.ref.kind === 'lease').map((b) => (
            <span key={b.id} className="ttl" data-ttl={b.id} style={{ top: b.y + b.h - 17 }} aria-hidden="true" />
          ))}
        </div>
      </div>
    </div>
  );
}

interface DrawArgs {
  lanes: Lanes;
  boxes: LaneBox[];
  x: d3.ScaleLinear<number, number>;
  plotW: number;
  height: number;
  uid: string;
  run: DerivedRun;
  /** Draw the findings: violation marks, "DUPLICATE" on writes (the view's mode may hide them). */
  showFindings: boolean;
  /** x of each fault marker, by lane id: segment words keep clear of them. */
  markerXs: ReadonlyMap<string, readonly number[]>;
  /** The current scale (handlers read it when they fire; zooming does not rebuild them). */
  xNow: () => d3.ScaleLinear<number, number>;
  onLane: (lane: LaneRef, ms: number, pos: { x: number; y: number }) => void;
  onEventId: (id: string) => void;
}

function clampX(x: d3.ScaleLinear<number, number>, plotW: number, ms: number): number {
  return Math.max(-10, Math.min(plotW + 10, x(ms)));
}

type G = d3.Selection<SVGGElement, unknown, null, undefined>;

/**
 * One drawn thing (a segment, a mark, a bar). `key` names it across runs (so a re-run that keeps
 * it keeps its element); `sig` is everything it draws (positions, text, colours): an element
 * whose signature did not change is not touched at all.
 */
interface Item {
  readonly key: string;
  readonly sig: string;
  readonly label?: string;
  readonly draw: (g: G) => void;
}

type Signed = SVGGElement & { __sig?: string };

/** Keyed join of `items` into `parent`'s `g.<cls>` children: enter, exit, and redraw only what changed. */
function joinItems(parent: G, items: readonly Item[], cls: string, role: string | null = 'listitem'): void {
  // Keys must be unique for a keyed join.
  const seen = new Map<string, number>();
  const data = items.map((it) => {
    const n = seen.get(it.key) ?? 0;
    seen.set(it.key, n + 1);
    return n === 0 ? it : { ...it, key: `${it.key}#${n}` };
  });
  const sel = parent.selectChildren<SVGGElement, Item>(`g.${cls}`).data(data, (d) => d.key);
  sel.exit().remove();
  const all = sel.enter().append('g').attr('class', cls).merge(sel);
  all.each(function (d) {
    const el = this as Signed;
    if (el.__sig === d.sig) return;
    el.__sig = d.sig;
    el.replaceChildren();
    if (role) el.setAttribute('role', role);
    if (d.label !== undefined) el.setAttribute('aria-label', d.label);
    d.draw(d3.select(el));
  });
  all.order();
}

/** A persistent group per lane (role list), keyed by lane id. */
function laneGroup(content: G, id: string, ariaLabel: string): G {
  let g = content.selectChildren<SVGGElement, unknown>(`g.lane[data-lane="${id}"]`) as unknown as G;
  if (g.empty()) g = content.append('g').attr('class', 'lane').attr('data-lane', id).attr('role', 'list').attr('pointer-events', 'none') as unknown as G;
  if (g.attr('aria-label') !== ariaLabel) g.attr('aria-label', ariaLabel);
  return g;
}

/** One-word state names for narrow segments. */
const STATE_SHORT: Record<keyof typeof STATE_TEXT, string> = {
  idle: 'idle', requesting: 'req', waiting: 'wait', holding: 'holds', working: 'work', performingEffect: 'effect',
  recordingCompletion: 'record', releasing: 'release', paused: 'paused', crashed: 'crashed', done: 'done',
};

const r1 = (v: number) => Math.round(v * 10) / 10;

/** The first of `texts` that fits in `room` px at about `charPx` per character ('' when none does). */
function fitText(room: number, charPx: number, ...texts: string[]): string {
  return texts.find((t) => t.length * charPx <= room) ?? '';
}

/**
 * Draws the lane backgrounds, the axis and every lane's content, incrementally: keyed joins keep
 * the elements of everything a re-run did not change, the axis is redrawn only when the scale
 * changes, and nothing here reads layout.
 */
function drawLanes(svgEl: SVGSVGElement, a: DrawArgs): void {
  const { lanes, boxes, x, plotW, uid } = a;
  const svg = d3.select(svgEl);
  const X = (ms: number) => r1(clampX(x, plotW, ms));
  const W = (s: number, e: number, min = 2) => r1(Math.max(min, X(e) - X(s)));
  const store = svgEl as SVGSVGElement & { __x?: unknown; __plotW?: number };

  // Axis: only when the scale changed (zoom, width, length of the run).
  if (store.__x !== x || store.__plotW !== plotW) {
    store.__x = x;
    store.__plotW = plotW;
    const axis = d3.axisTop<number>(x).ticks(Math.max(3, Math.floor(plotW / 90))).tickFormat((d) => fmtSeconds(Number(d)));
    svg.select<SVGGElement>('g.axis').call(axis as unknown as (g: d3.Selection<SVGGElement, unknown, null, undefined>) => void).attr('font-size', 13);
  }

  // Lane backgrounds (click → fault menu): static unless the lanes or the width change.
  const bg = svg.select<SVGGElement>('g.lanes-bg') as unknown as G;
  joinItems(bg, boxes.map((b) => ({
    key: b.id,
    sig: `${b.y}|${b.h}|${plotW}`,
    draw: (g) => {
      g.append('rect').attr('class', 'lane-bg').attr('x', 0).attr('y', b.y).attr('width', plotW).attr('height', b.h)
        .attr('fill', b.ref.kind === 'worker' ? '#f1f3f5' : b.ref.kind === 'lease' ? '#fff7e6' : b.ref.kind === 'database' ? '#eef6ff' : '#f3f0ff')
        .on('click contextmenu', (event: MouseEvent) => {
          event.preventDefault();
          const [px] = d3.pointer(event, svgEl);
          a.onLane(b.ref, Math.max(0, Math.round(a.xNow().invert(px))), { x: event.pageX, y: event.pageY });
        });
    },
  })), 'bg-item', null);
  const content = svg.select<SVGGElement>('g.content') as unknown as G;

  // Worker lanes.
  for (const w of lanes.workers) {
    const b = boxes.find((bx) => bx.ref.kind === 'worker' && bx.ref.worker === w.id);
    if (!b) continue;
    const items: Item[] = [];
    for (const s of w.segments) {
      if (X(s.endMs) < -5 || X(s.startMs) > plotW + 5) continue;
      const rx = X(s.startMs);
      const rw = W(s.startMs, s.endMs);
      const pat = STATE_PATTERN[s.state];
      // Words start after a fault marker sitting at the segment's start, end before the next one,
      // and appear only where they fit inside the bar (white on a light lane would vanish).
      const marks = a.markerXs.get(b.id) ?? [];
      const textX = Math.max(rx + 5, ...marks.filter((m) => m >= rx - 14 && m <= rx + 16).map((m) => m + 16));
      const stop = Math.min(rx + rw, plotW, ...marks.filter((m) => m > textX - 2).map((m) => m - 15));
      const text = fitText(stop - textX - 2, 8.2, `${STATE_TEXT[s.state]} ${fmtSeconds(s.endMs - s.startMs)}`, STATE_TEXT[s.state], STATE_SHORT[s.state]);
      items.push({
        key: `${s.startMs}|${s.state}`,
        sig: `${rx}|${rw}|${b.y}|${b.h}|${s.endMs}|${text}|${r1(textX)}|${uid}`,
        label: `${w.id} ${STATE_TEXT[s.state]} from ${fmtSeconds(s.startMs)} to ${fmtSeconds(s.endMs)}`,
        draw: (sg) => {
          sg.append('rect').attr('x', rx).attr('y', b.y + 4).attr('width', rw).attr('height', b.h - 8).attr('rx', 3).attr('fill', STATE_FILL[s.state]);
          if (pat) sg.append('rect').attr('x', rx).attr('y', b.y + 4).attr('width', rw).attr('height', b.h - 8).attr('fill', `url(#${uid}-${pat})`);
          sg.append('title').text(`${w.id}: ${STATE_TEXT[s.state]} ${fmtSeconds(s.startMs)} – ${fmtSeconds(s.endMs)}`);
          if (text) sg.append('text').attr('x', textX).attr('y', b.y + b.h / 2 + 5).attr('fill', textOn(s.state)).attr('font-size', 13).attr('font-weight', 600).text(text);
        },
      });
    }
    joinItems(laneGroup(content, b.id, b.ariaLabel), items, 'item');
  }

  // Lease lanes.
  for (const l of lanes.leases) {
    const b = boxes.find((bx) => bx.ref.kind === 'lease' && bx.ref.key === l.key);
    if (!b) continue;
    joinItems(laneGroup(content, b.id, b.ariaLabel), l.segments.map((s) => {
      const rx = X(s.startMs);
      const rw = W(s.startMs, s.endMs);
      const ex = s.expiresAtMs !== null ? X(s.expiresAtMs) : null;
      const text = fitText(Math.min(rx + rw, plotW) - rx - 9, 7.8, `${s.owner}${s.token !== null ? ` · token ${s.token}` : ''}`, s.owner);
      return {
        key: `${s.startMs}|${s.value}`,
        sig: `${rx}|${rw}|${ex}|${b.y}|${b.h}|${s.owner}|${s.token}|${s.endMs}|${text}`,
        label: `${l.key} owned by ${s.owner}${s.token !== null ? `, token ${s.token}` : ''} from ${fmtSeconds(s.startMs)} to ${fmtSeconds(s.endMs)}`,
        draw: (sg: G) => {
          sg.append('rect').attr('x', rx).attr('y', b.y + 4).attr('width', rw).attr('height', b.h - 20).attr('rx', 3).attr('fill', '#b45309');
          // TTL: the remaining-time ramp under the owner bar.
          if (ex !== null) sg.append('path').attr('d', `M${rx},${b.y + b.h - 15} L${ex},${b.y + b.h - 4} L${rx},${b.y + b.h - 4} Z`).attr('fill', '#f59e0b').attr('opacity', 0.6);
          sg.append('title').text(`${l.key} = ${s.value} (owner ${s.owner}${s.token !== null ? `, fencing token ${s.token}` : ''})${s.expiresAtMs !== null ? `, expires at ${fmtSeconds(s.expiresAtMs)}` : ''}`);
          if (text) sg.append('text').attr('x', rx + 5).attr('y', b.y + 18).attr('fill', '#fff').attr('font-size', 13).attr('font-weight', 700).text(text);
        },
      };
    }), 'item');
  }

  // Database lane: locks held (solid) and waited for (dotted), rows written, errors.
  const db = boxes.find((bx) => bx.ref.kind === 'database');
  if (db) {
    const items: Item[] = [];
    for (const l of lanes.locks) {
      const y = db.y + 6 + l.row * ROW_H;
      const rx = X(l.startMs);
      const rw = W(l.startMs, l.endMs, 3);
      const text = fitText(Math.min(rx + rw, plotW) - rx - 8, 6.9, `${l.granted ? '' : 'waits: '}${l.holder} · ${l.what}`, `${l.granted ? '' : 'waits: '}${l.holder}`);
      items.push({
        key: `lock|${l.startMs}|${l.holder}|${l.what}|${l.granted}`,
        sig: `${rx}|${rw}|${y}|${l.endMs}|${text}|${uid}`,
        label: `${l.holder} ${l.granted ? 'holds' : 'waits for'} ${l.what} from ${fmtSeconds(l.startMs)} to ${fmtSeconds(l.endMs)}`,
        draw: (sg) => {
          sg.append('rect').attr('x', rx).attr('y', y).attr('width', rw).attr('height', ROW_H - 4).attr('rx', 2)
            .attr('fill', l.granted ? '#1e40af' : '#e5e7eb').attr('stroke', l.granted ? 'none' : '#1e40af').attr('stroke-dasharray', '4 2');
          if (!l.granted) sg.append('rect').attr('x', rx).attr('y', y).attr('width', rw).attr('height', ROW_H - 4).attr('fill', `url(#${uid}-dots)`);
          sg.append('title').text(`${l.holder} ${l.granted ? 'holds' : 'waits for'} ${l.what}`);
          if (text) sg.append('text').attr('x', rx + 4).attr('y', y + 12).attr('font-size', 12).attr('fill', l.granted ? '#fff' : '#111827').text(text);
        },
      });
    }
    for (const m of lanes.dbMarks) {
      const mx = X(m.atMs);
      items.push({
        key: `mark|${m.kind}|${m.atMs}|${m.label}`,
        sig: `${mx}|${db.y}|${db.h}`,
        label: m.kind === 'error' ? `Error at ${fmtSeconds(m.atMs)}: ${m.label}` : `Row written at ${fmtSeconds(m.atMs)}: ${m.label}`,
        draw: (sg) => {
          if (m.kind === 'error') {
            sg.append('path').attr('d', `M${mx},${db.y + 2} l7,12 l-14,0 Z`).attr('fill', '#b91c1c');
            sg.append('text').attr('x', mx).attr('y', db.y + 13).attr('text-anchor', 'middle').attr('font-size', 10).attr('font-weight', 700).attr('fill', '#fff').text('!');
          } else {
            sg.append('rect').attr('x', mx - 5).attr('y', db.y + db.h - 13).attr('width', 10).attr('height', 10).attr('fill', '#166534');
            sg.append('text').attr('x', mx + 7).attr('y', db.y + db.h - 4).attr('font-size', 11).attr('fill', '#14532d').text('row');
          }
          sg.append('title').text(m.label);
        },
      });
    }
    joinItems(laneGroup(content, db.id, db.ariaLabel), items, 'item');
  }

  // Destination lane.
  const dest = boxes.find((bx) => bx.ref.kind === 'destination');
  if (dest) {
    joinItems(laneGroup(content, dest.id, dest.ariaLabel), lanes.writes.map((w) => {
      const y = dest.y + 6 + w.row * ROW_H;
      const rx = X(w.startMs);
      const rw = W(w.startMs, w.endMs, 10);
      const dup = w.duplicate && a.showFindings;
      const word = dup ? 'DUPLICATE' : w.status === 'rejected' ? 'rejected: stale token' : w.status === 'deduplicated' ? 'deduplicated (key seen)' : w.status === 'aborted' ? 'aborted' : w.status === 'inFlight' ? 'in flight' : 'accepted';
      const fill = dup ? `url(#${uid}-dup)` : w.status === 'rejected' ? '#f3f4f6' : w.status === 'deduplicated' ? '#e0f2fe' : w.status === 'aborted' ? '#d1d5db' : '#047857';
      const icon = dup ? '⚠' : w.status === 'rejected' ? '✕' : w.status === 'deduplicated' ? '=' : w.status === 'accepted' ? '✓' : '…';
      const dark = w.status === 'rejected' || w.status === 'deduplicated' || w.status === 'aborted';
      const short = `${icon} ${w.worker}${w.token !== null ? ` tok ${w.token}` : ''}`;
      const text = `${short}${rw > 120 || dark ? ` · ${word}` : ''}`;
      // Room for the words: anchor at the bar's start, or end them at the bar's end (or the plot's
      // edge) when they would run off the right; keep only the short form when neither fits.
      const need = text.length * 7.2 + 8;
      const endX = Math.min(rx + rw, plotW);
      const anchorEnd = rx + need > plotW && endX - need >= 0;
      const shown = rx + need > plotW && endX - need < 0 ? short : text;
      return {
        key: `${w.id}|${w.worker}|${w.startMs}`,
        sig: `${rx}|${rw}|${y}|${fill}|${shown}|${anchorEnd}|${w.reply}`,
        label: `Write #${w.id} by ${w.worker}${w.token !== null ? ` with token ${w.token}` : ''}: ${word}`,
        draw: (sg: G) => {
          sg.append('rect').attr('x', rx).attr('y', y).attr('width', rw).attr('height', ROW_H - 3).attr('rx', 2).attr('fill', fill)
            .attr('stroke', w.status === 'rejected' ? '#b91c1c' : dup ? '#7f1d1d' : '#064e3b').attr('stroke-width', w.status === 'rejected' ? 2 : 1)
            .attr('stroke-dasharray', w.status === 'rejected' || w.status === 'deduplicated' ? '4 2' : null);
          sg.append('text').attr('x', anchorEnd ? endX - 3 : rx + 3).attr('text-anchor', anchorEnd ? 'end' : 'start').attr('y', y + 13).attr('font-size', 12).attr('font-weight', 700).attr('fill', dark ? (w.status === 'rejected' ? '#991b1b' : '#111827') : '#fff')
            .attr('paint-order', 'stroke').attr('stroke', dark ? 'none' : dup ? '#7f1d1d' : '#064e3b').attr('stroke-width', dark ? 0 : 3)
            .text(shown);
          sg.append('title').text(`Write #${w.id} by ${w.worker}${w.token !== null ? ` (token ${w.token})` : ''}: ${w.reply}`);
        },
      };
    }), 'item');
  }

  // Lanes that no longer exist go; the rest stay in lane order (the order screen readers list them).
  const ids = boxes.map((b) => b.id);
  content.selectChildren<SVGGElement, unknown>('g.lane').filter(function () { return !ids.includes(this.getAttribute('data-lane') ?? ''); }).remove();
  const groups = content.selectChildren<SVGGElement, unknown>('g.lane').nodes();
  const order = (el: SVGGElement) => ids.indexOf(el.getAttribute('data-lane') ?? '');
  if (groups.some((el, i) => i > 0 && order(groups[i - 1]!) > order(el))) {
    for (const el of [...groups].sort((p, q) => order(p) - order(q))) content.node()!.appendChild(el);
  }

  // Violation marks (triangle + "!"; a dashed line through the lanes).
  let mg = content.selectChildren<SVGGElement, unknown>('g.violations') as unknown as G;
  if (mg.empty()) mg = content.append('g').attr('class', 'violations') as unknown as G;
  mg.raise();
  joinItems(mg, (a.showFindings ? lanes.violations : []).map((v) => {
    const vx = X(v.atMs);
    return {
      key: `${v.eventId}|${v.message}`,
      sig: `${vx}|${a.height}|${v.severity}`,
      draw: (vg: G) => {
        vg.append('line').attr('x1', vx).attr('x2', vx).attr('y1', AXIS_H + MARKS_H - 4).attr('y2', a.height).attr('stroke', v.severity === 'violation' ? '#b91c1c' : '#6b7280').attr('stroke-dasharray', '5 4').attr('pointer-events', 'none');
        const mark = vg.append('g').attr('class', 'violation-mark no-zoom').attr('role', 'button').attr('tabindex', 0)
          .attr('aria-label', `${v.severity === 'violation' ? 'Violation' : 'Redundant, not a violation'}: ${v.message}. Go to event ${v.eventId}.`)
          .style('cursor', 'pointer')
          .on('click', () => a.onEventId(v.eventId))
          .on('keydown', (event: KeyboardEvent) => {
            if (event.key === 'Enter' || event.key === ' ') {
              event.preventDefault();
              event.stopPropagation();
              a.onEventId(v.eventId);
            }
          });
        mark.append('path').attr('d', `M${vx},${AXIS_H + 2} l10,18 l-20,0 Z`).attr('fill', v.severity === 'violation' ? '#b91c1c' : '#6b7280');
        mark.append('text').attr('x', vx).attr('y', AXIS_H + 18).attr('text-anchor', 'middle').attr('font-size', 13).attr('font-weight', 800).attr('fill', '#fff').text(v.severity === 'violation' ? '!' : 'i');
        mark.append('title').text(v.message);
      },
    };
  }), 'vmark', null);
}

interface FaultArgs {
  faults: readonly Fault[];
  run: DerivedRun;
  boxes: LaneBox[];
  x: d3.ScaleLinear<number, number>;
  plotW: number;
  selected: number | null;
  cb: { current: TimelineProps };
}

/**
 * Draws fault markers with a keyed join (index), draggable in time and keyboard-operable. Handlers
 * are bound once per marker and read the current scale and data when they fire; a marker whose
 * position, text and selection did not change is not touched.
 */
function drawFaults(svgEl: SVGSVGElement, a: FaultArgs): void {
  const { run, boxes, x, plotW } = a;
  const host = svgEl as SVGSVGElement & { __faults?: FaultArgs };
  host.__faults = a;
  const data = a.faults.map((f, index) => {
    const lane = laneOfFault(f, run.scenario);
    const box = boxes.find((b) => sameLane(b.ref, lane)) ?? boxes[0]!;
    const ms = faultTimeMs(f, index, run);
    return { f, index, box, ms: ms ?? 0, fired: ms !== null, text: describeFault(f, run.scenario) };
  });
  type D = (typeof data)[number];
  const g = d3.select(svgEl).select('g.faults');
  const sel = g.selectAll<SVGGElement, D>('g.fault-marker').data(data, (d) => String(d.index));
  sel.exit().remove();
  const enter = sel.enter().append('g').attr('class', 'fault-marker no-zoom').attr('tabindex', 0).attr('role', 'button').style('cursor', 'grab');
  enter.append('path').attr('class', 'fault-shape').attr('d', 'M0,-13 L13,0 L0,13 L-13,0 Z').attr('stroke', '#111827');
  enter.append('text').attr('class', 'fault-glyph').attr('aria-hidden', 'true').attr('text-anchor', 'middle').attr('font-size', 13).attr('font-weight', 700).attr('y', 5).attr('fill', '#111827');
  enter.on('keydown', (event: KeyboardEvent, d) => {
    const cb = host.__faults!.cb.current;
    if (event.key === 'ArrowLeft' || event.key === 'ArrowRight') {
      event.preventDefault();
      event.stopPropagation();
      const step = event.shiftKey ? 100 : 1000;
      cb.onFaultMove?.(d.index, Math.max(0, d.ms + (event.key === 'ArrowLeft' ? -step : step)));
    } else if (event.key === 'Delete' || event.key === 'Backspace') {
      event.preventDefault();
      event.stopPropagation();
      cb.onFaultRemove?.(d.index);
    } else if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      event.stopPropagation();
      cb.onFaultSelect?.(d.index);
    }
  });
  enter.on('click', (event: MouseEvent, d) => {
    event.stopPropagation();
    host.__faults!.cb.current.onFaultSelect?.(d.index);
  });
  const drag = d3.drag<SVGGElement, D>()
    .container(svgEl)
    .subject((event: d3.D3DragEvent<SVGGElement, D, D>) => ({ x: event.x, y: event.y }) as unknown as D)
    .on('start', function () {
      d3.select(this).style('cursor', 'grabbing');
    })
    .on('drag', function (event: d3.D3DragEvent<SVGGElement, D, D>, d) {
      const px = Math.max(0, Math.min(host.__faults!.plotW, event.x));
      d3.select(this).attr('transform', `translate(${px},${d.box.y + d.box.h / 2})`);
    })
    .on('end', function (event: d3.D3DragEvent<SVGGElement, D, D>, d) {
      const cur = host.__faults!;
      d3.select(this).style('cursor', 'grab');
      (this as Signed).__sig = undefined;
      const px = Math.max(0, Math.min(cur.plotW, event.x));
      const ms = Math.round(cur.x.invert(px) / 100) * 100;
      if (Math.abs(px - cur.x(d.ms)) > 2) cur.cb.current.onFaultMove?.(d.index, ms);
      else d3.select(this).attr('transform', `translate(${Math.max(0, Math.min(cur.plotW, cur.x(d.ms)))},${d.box.y + d.box.h / 2})`);
    });
  enter.call(drag);
  enter.merge(sel).each(function (d) {
    const el = this as Signed;
    const tx = r1(Math.max(0, Math.min(plotW, x(d.ms))));
    const selected = d.index === a.selected;
    const sig = `${tx}|${d.box.y}|${d.box.h}|${d.text}|${d.fired}|${selected}|${faultGlyph(d.f)}`;
    if (el.__sig === sig) return;
    el.__sig = sig;
    const m = d3.select(el);
    m.attr('data-fault-index', d.index)
      .attr('transform', `translate(${tx},${d.box.y + d.box.h / 2})`)
      .attr('aria-label', `Fault: ${d.text}${d.fired ? '' : ' (did not fire)'}. Drag or press left and right arrows to move it by 1 s, Delete to remove, Enter to edit.`)
      .attr('aria-pressed', selected ? 'true' : 'false')
      .classed('selected', selected);
    m.select('path.fault-shape').attr('fill', d.fired ? '#fde047' : '#e5e7eb').attr('stroke-width', selected ? 3 : 1.5);
    m.select('text.fault-glyph').text(faultGlyph(d.f));
  });
}
