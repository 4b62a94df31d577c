/**
 * Draws a laid-out statechart (./layout.ts) as SVG: states as rounded boxes (the compound `active`
 * around its children, the history pseudo-state as (H), the final state doubled, initial
 * pseudo-states as dots), transitions as arrows labelled with their event. Each state shows its
 * `label` (the UI's words) and keeps its machine name as a `<title>` tooltip. `activeId` is
 * highlighted with its enclosing states; `nextEdgeIds` are the arrows the next event takes (a path: one trace event may take several transitions). Colours
 * are the theme's (styles.css, `.statechart`).
 */
import type { ChartLayout } from './layout';

/** Props: the layout and what to highlight. */
export interface StatechartDiagramProps {
  readonly layout: ChartLayout;
  /** The active state's node id and its ancestors' (innermost first). */
  readonly active: readonly string[];
  /** The ids of the edges the next event takes, in order (empty: none). */
  readonly nextEdgeIds: readonly string[];
  /** Accessible description of the whole diagram. */
  readonly label: string;
}

const PAD = 6;

/** The statechart drawing. */
export function StatechartDiagram({ layout, active, nextEdgeIds, label }: StatechartDiagramProps) {
  const activeSet = new Set(active);
  const nextSet = new Set(nextEdgeIds);
  const nodes = [...layout.nodes].sort((a, b) => (a.node.kind === 'compound' ? -1 : 0) - (b.node.kind === 'compound' ? -1 : 0));
  const edges = [...layout.edges].sort((a, b) => (nextSet.has(a.edge.id) ? 1 : 0) - (nextSet.has(b.edge.id) ? 1 : 0));
  return (
    <svg className="statechart-svg" viewBox={`${-PAD} ${-PAD} ${layout.width + 2 * PAD} ${layout.height + 2 * PAD}`} role="img" aria-label={label} data-testid="statechart-svg">
      <defs>
        <marker id="sc-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" className="sc-arrowhead" /></marker>
        <marker id="sc-arrow-next" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" className="sc-arrowhead next" /></marker>
      </defs>
      {nodes.map(({ node, x, y, width, height }) => {
        const on = activeSet.has(node.id);
        const cls = `sc-state sc-${node.kind}${on ? ' active' : ''}${on && active[0] === node.id ? ' current' : ''}`;
        if (node.kind === 'initial') return <circle key={node.id} className={cls} cx={x + width / 2} cy={y + height / 2} r={width / 2} data-state={node.id} />;
        if (node.kind === 'history') {
          return (
            <g key={node.id} className={cls} data-state={node.id}>
              <title>{`history: back to the state it was paused in (machine state ${node.machineName})`}</title>
              <circle cx={x + width / 2} cy={y + height / 2} r={width / 2} />
              <text x={x + width / 2} y={y + height / 2} dy="0.35em" textAnchor="middle">H</text>
            </g>
          );
        }
        return (
          <g key={node.id} className={cls} data-state={node.id} aria-current={on && active[0] === node.id ? 'true' : undefined}>
            <title>{node.label === node.machineName ? `machine state ${node.machineName}` : `${node.label} (machine state ${node.machineName})`}</title>
            <rect x={x} y={y} width={width} height={height} rx={node.kind === 'compound' ? 12 : 8} />
            {node.kind === 'final' && <rect className="sc-final-inner" x={x + 3} y={y + 3} width={width - 6} height={height - 6} rx={6} />}
            <text x={node.kind === 'compound' ? x + 12 : x + width / 2} y={node.kind === 'compound' ? y + 18 : node.internal.length > 0 ? y + 15 : y + height / 2} dy={node.kind === 'compound' ? 0 : '0.35em'} textAnchor={node.kind === 'compound' ? 'start' : 'middle'}>
              {node.label}
              {node.internal.length > 0 && node.kind === 'compound' ? <tspan className="sc-internal"> · {node.internal.join(', ')} (no change of state)</tspan> : null}
            </text>
            {node.internal.length > 0 && node.kind !== 'compound' && <text className="sc-internal" x={x + width / 2} y={y + 32} textAnchor="middle">{node.internal.join(', ')}</text>}
          </g>
        );
      })}
      {edges.map(({ edge, points, label: l }) => {
        const next = nextSet.has(edge.id);
        return (
          <g key={edge.id} className={`sc-edge${next ? ' next' : ''}`} data-edge={edge.id} data-step={next ? nextEdgeIds.indexOf(edge.id) + 1 : undefined}>
            <polyline points={points.map((p) => `${p.x},${p.y}`).join(' ')} markerEnd={`url(#${next ? 'sc-arrow-next' : 'sc-arrow'})`} />
            {l && <rect className="sc-label-bg" x={l.x - 1} y={l.y - 1} width={l.width + 2} height={l.height + 2} rx={3} />}
            {l && <text x={l.x + l.width / 2} y={l.y + l.height / 2} dy="0.35em" textAnchor="middle">{edge.event}</text>}
          </g>
        );
      })}
    </svg>
  );
}
