/**
 * The UI speed goals (issue 9 "Speed as a user feels it", issue 11 for the fault search) and the
 * table `npm run bench:ui` ends with: each goal, its target, what was measured and whether it is
 * met. Figures are wall-clock milliseconds (kB for sizes) on whatever machine runs the bench; the
 * bench prints the load average next to them.
 */

/** One measured goal: met when `value <= target`. `detail` says where the value comes from (the worst preset, how many met it). */
export interface GoalRow {
  readonly goal: string;
  readonly target: number;
  readonly unit: 'ms' | 'kB';
  readonly value: number;
  readonly detail?: string;
}

/** Whether a goal is met (a value equal to its target meets it; NaN — not measured — does not). */
export function met(row: Pick<GoalRow, 'value' | 'target'>): boolean {
  return row.value <= row.target;
}

/** `✓` or `✗` for a value against a target (per-preset cells). */
export function mark(value: number, target: number): string {
  return met({ value, target }) ? '✓' : '✗';
}

/**
 * The worst value over named items with how many meet the target, as a goal row: e.g. the
 * click → repaint median of every preset. Throws Error when `items` is empty.
 */
export function worstOf(goal: string, target: number, unit: GoalRow['unit'], items: readonly { name: string; value: number }[]): GoalRow {
  if (items.length === 0) throw new Error(`worstOf(${goal}): no items measured`);
  const worst = items.reduce((a, b) => (b.value > a.value || Number.isNaN(b.value) ? b : a));
  const ok = items.filter((i) => met({ value: i.value, target })).length;
  return { goal, target, unit, value: worst.value, detail: `worst: ${worst.name}; ${ok}/${items.length} meet it` };
}

const fmt = (n: number, unit: GoalRow['unit']) => (Number.isNaN(n) ? 'n/a' : `${n.toFixed(unit === 'kB' ? 1 : n < 100 ? 1 : 0)} ${unit}`);

/** The goals as a text table: goal, target, measured, met (✓ / ✗), detail; then how many are met. */
export function goalTable(rows: readonly GoalRow[]): string {
  const cells = rows.map((r) => [r.goal, `≤ ${fmt(r.target, r.unit)}`, fmt(r.value, r.unit), met(r) ? '✓ met' : '✗ not met', r.detail ?? '']);
  const head = ['goal', 'target', 'measured', 'met', 'detail'];
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: readonly string[]) => c.map((x, i) => (i === 1 || i === 2 ? x.padStart(widths[i]!) : x.padEnd(widths[i]!))).join('  ').trimEnd();
  const okCount = rows.filter(met).length;
  return [line(head), widths.map((w) => '─'.repeat(w)).join('  '), ...cells.map(line), `${okCount} of ${rows.length} goals met`].join('\n');
}
