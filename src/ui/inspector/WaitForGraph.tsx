/**
 * A wait-for graph, drawn small and listed in words: who waits for whom, the edges of a cycle
 * highlighted. Used by the inspector (the database's graph at the cursor, from the snapshot's
 * `waitFor`) and by the verdict (a `noWaitCycle` finding's cycle). Renders only; the edges are
 * computed by the caller (`waitForAtCursor` for the inspector).
 */
import { useId } from 'react';
import { findCycleThrough, lockInWords, type PoolSnapshot, type WaitEdge } from '../../sim';

/** One arrow: `from` waits for `to`, for `label`; `onCycle` draws it highlighted. */
export interface GraphEdge {
  readonly from: string;
  readonly to: string;
  readonly label: string;
  readonly onCycle: boolean;
  /** A soft edge (queued behind a conflicting request), drawn dashed. */
  readonly soft?: boolean;
}

/**
 * The database's wait-for graph in the inspector's terms: sessions named by the worker holding
 * them (`A (c1)`), locks in words, and whether the edge lies on a cycle (through hard or soft
 * edges). `deadlock` is true when a cycle of hard edges exists: PostgreSQL's check will end it.
 */
export function waitForAtCursor(edges: readonly WaitEdge[], pool: PoolSnapshot): { readonly edges: GraphEdge[]; readonly cycle: boolean; readonly deadlock: boolean } {
  const name = (session: string) => {
    const borrower = pool.connections.find((c) => c.id === session)?.borrower;
    return borrower ? `${borrower} (${session})` : session;
  };
  const onCycle = new Set<WaitEdge>();
  let deadlock = false;
  for (const node of new Set(edges.map((e) => e.from))) {
    const hard = findCycleThrough(edges, node, false);
    if (hard) deadlock = true;
    for (const e of hard ?? findCycleThrough(edges, node, true) ?? []) onCycle.add(e);
  }
  const out = edges.map((e) => ({ from: name(e.from), to: name(e.to), label: `${lockInWords(e.lock)}${e.kind === 'soft' ? ', queued behind' : ''}`, onCycle: onCycle.has(e), soft: e.kind === 'soft' }));
  return { edges: out, cycle: onCycle.size > 0, deadlock };
}

const R = 46;
const SIZE = 150;

/** The graph: nodes on a circle with arrows, and the same edges as a list. */
export function WaitForGraph({ edges, label }: { readonly edges: readonly GraphEdge[]; readonly label: string }) {
  const nodes = [...new Set(edges.flatMap((e) => [e.from, e.to]))];
  const uid = useId().replace(/:/g, '');
  const arrow = `wf-arrow-${uid}`;
  const arrowCycle = `wf-arrow-cycle-${uid}`;
  const at = (n: string) => {
    // One node alone (a worker waiting for itself) sits in the middle, with room for its loop above.
    if (nodes.length === 1) return { x: SIZE / 2, y: SIZE / 2 + 25 };
    const i = nodes.indexOf(n);
    const a = -Math.PI / 2 + (2 * Math.PI * i) / nodes.length;
    return { x: SIZE / 2 + R * Math.cos(a), y: SIZE / 2 + R * Math.sin(a) };
  };
  return (
    <figure className="wait-for" data-testid="wait-for-graph">
      <svg viewBox={`0 0 ${SIZE} ${SIZE}`} width={SIZE} height={SIZE} role="img" aria-label={label}>
        <defs>
          <marker id={arrow} viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" className="wf-head" /></marker>
          <marker id={arrowCycle} viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" className="wf-head cycle" /></marker>
        </defs>
        {edges.map((e, i) => {
          const a = at(e.from);
          const b = at(e.to);
          if (e.from === e.to) {
            // A worker that waits for itself (its helper waits for a connection or a lock it holds): a loop out of the node and back.
            // Outward from the circle's centre; a node alone loops upward.
            const [cx, cy] = [SIZE / 2, SIZE / 2];
            const len = Math.hypot(a.x - cx, a.y - cy);
            const [ux, uy] = nodes.length === 1 || len < 1 ? [0, -1] : [(a.x - cx) / len, (a.y - cy) / len];
            const [px, py] = [-uy, ux];
            const k = i % 2 === 0 ? 1 : 1.5;
            const start = { x: a.x + ux * 15 + px * 8, y: a.y + uy * 15 + py * 8 };
            const end = { x: a.x + ux * 15 - px * 8, y: a.y + uy * 15 - py * 8 };
            const c1 = { x: a.x + ux * 55 * k + px * 30, y: a.y + uy * 55 * k + py * 30 };
            const c2 = { x: a.x + ux * 55 * k - px * 30, y: a.y + uy * 55 * k - py * 30 };
            return (
              <path key={i} className={`wf-edge wf-loop${e.onCycle ? ' cycle' : ''}${e.soft ? ' soft' : ''}`} fill="none"
                d={`M${start.x},${start.y} C${c1.x},${c1.y} ${c2.x},${c2.y} ${end.x},${end.y}`}
                markerEnd={`url(#${e.onCycle ? arrowCycle : arrow})`} />
            );
          }
          const len = Math.hypot(b.x - a.x, b.y - a.y) || 1;
          const [ux, uy] = [(b.x - a.x) / len, (b.y - a.y) / len];
          // Two opposite arrows between the same nodes are drawn side by side.
          const [ox, oy] = [-uy * 5, ux * 5];
          const gap = 17;
          return (
            <line key={i} className={`wf-edge${e.onCycle ? ' cycle' : ''}${e.soft ? ' soft' : ''}`}
              x1={a.x + ux * gap + ox} y1={a.y + uy * gap + oy} x2={b.x - ux * gap + ox} y2={b.y - uy * gap + oy}
              markerEnd={`url(#${e.onCycle ? arrowCycle : arrow})`} />
          );
        })}
        {nodes.map((n) => {
          const p = at(n);
          const cyc = edges.some((e) => e.onCycle && (e.from === n || e.to === n));
          return (
            <g key={n} className={`wf-node${cyc ? ' cycle' : ''}`}>
              <circle cx={p.x} cy={p.y} r={15} />
              <text x={p.x} y={p.y + 4} textAnchor="middle">{n.split(' ')[0]}</text>
            </g>
          );
        })}
      </svg>
      <figcaption>
        <ul className="wf-list">
          {edges.map((e, i) => (
            <li key={i} className={e.onCycle ? 'cycle' : undefined}>
              {e.from} waits for {e.to}: {e.label}{e.onCycle ? ' — on the cycle' : ''}
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}
