import { findPreset } from '../../../sim';
import { deriveRun } from '../../store/derive';
import { laneOfFault } from '../../faults/faultCatalog';
import { buildLanes, laneIdOf, lanesOf } from '.';
import { layoutLanes, AXIS_H, MARKS_H } from '../layout';

const run = (id: string, v: 'withoutFix' | 'withFix' = 'withoutFix') => deriveRun(findPreset(id)![v]);

describe('lane kinds', () => {
  it('each registered kind contributes its lanes, in registration order', () => {
    const t = buildLanes(run('export-lease-expiry'));
    // Its workers take a lease and upload a file: no database lane (nothing talks to PostgreSQL).
    expect(t.lanes.map((l) => l.id)).toEqual(['worker-A', 'worker-B', 'lease-lease:export', 'destination']);
    expect(t.lanes.map((l) => l.label)).toEqual(['Worker A', 'Worker B', 'lease:export', 'File store']);
    expect(buildLanes(run('remote-call-in-txn')).lanes.map((l) => l.ref.kind)).toEqual(['worker', 'worker', 'worker', 'worker', 'database', 'destination']);
    // A scenario without a lease (and no lease fault) has no lease lane; one whose effect is a
    // database row (nothing writes a file store or an API) has no destination lane.
    expect(buildLanes(run('invoice-race')).lanes.map((l) => l.ref.kind)).toEqual(['worker', 'worker', 'database']);
    // Workers that only take and release a lease write no file: no "File store" lane.
    expect(buildLanes(run('unsafe-release')).lanes.map((l) => l.ref.kind)).not.toContain('destination');
  });

  it('a fault finds its lane by the lane kind\'s id', () => {
    const base = findPreset('export-lease-expiry')!.withoutFix;
    for (const f of [{ kind: 'pause', worker: 'B', atMs: 1, pauseMs: 1 }, { kind: 'expireLease', atMs: 1 }, { kind: 'adminBypass', atMs: 1 }] as const) {
      // The scenario with the fault in it shows the fault's lane (an admin script brings the database).
      const r = deriveRun({ ...base, faults: [...base.faults, f] });
      expect(lanesOf(r).lanes.map((l) => l.id)).toContain(laneIdOf(laneOfFault(f, r.scenario)));
    }
  });

  it('the lease lane follows the owner and says the TTL left at the cursor', () => {
    const r = run('export-lease-expiry');
    const lease = lanesOf(r).lanes.find((l) => l.ref.kind === 'lease')!;
    expect(lease.note?.className).toBe('ttl');
    expect(lease.note?.text(0)).toBe('A: TTL 30 s');
    expect(lease.note?.text(7_000)).toBe('A: TTL 23 s');
    // A's lease expired at 30 s under the pause; B takes it at the next retry.
    expect(lease.note?.text(31_500)).toMatch(/^B: TTL /);
  });

  it('draws a duplicate write as such only when findings are shown', () => {
    const r = run('export-lease-expiry');
    const dest = lanesOf(r).lanes.find((l) => l.ref.kind === 'destination')!;
    const ctx = (showFindings: boolean) => ({ y: 100, h: dest.h, X: (ms: number) => ms / 100, W: (s: number, e: number) => Math.max(2, (e - s) / 100), plotW: 800, uid: 'u', markerXs: [], showFindings });
    const labels = (show: boolean) => dest.items(ctx(show)).map((i) => i.label);
    expect(labels(true).some((l) => l?.endsWith(': DUPLICATE'))).toBe(true);
    expect(labels(false).some((l) => l?.includes('DUPLICATE'))).toBe(false);
  });

  it('lays the lanes out top to bottom below the axis and the marks row', () => {
    const { boxes, height } = layoutLanes(lanesOf(run('export-lease-expiry')).lanes);
    expect(boxes[0]!.y).toBe(AXIS_H + MARKS_H);
    for (let i = 1; i < boxes.length; i++) expect(boxes[i]!.y).toBe(boxes[i - 1]!.y + boxes[i - 1]!.h + 4);
    expect(height).toBe(boxes.at(-1)!.y + boxes.at(-1)!.h + 8);
  });
});

describe('words of a destination bar', () => {
  it('go inside when they fit, after the bar when it is too narrow, and nowhere when the next bar is too close', async () => {
    const { placeWords } = await import('./destination');
    expect(placeWords(10, 300, 900, 1000, ['✓ B tok 34 · accepted', '✓ B tok 34'])).toEqual({ text: '✓ B tok 34 · accepted', x: 13, inside: true });
    const after = placeWords(10, 20, 900, 1000, ['✓ B tok 34 · accepted', '✓ B tok 34']);
    expect(after).toEqual({ text: '✓ B tok 34 · accepted', x: 34, inside: false });
    const squeezed = placeWords(10, 20, 120, 1000, ['✓ B tok 34 · accepted', '✓ B tok 34', '✓ B']);
    expect(squeezed.text).toBe('✓ B tok 34');
    expect(squeezed.x + squeezed.text.length * 7.2).toBeLessThanOrEqual(120);
    expect(placeWords(10, 20, 40, 1000, ['✓ B tok 34', '✓ B']).text).toBe('');
  });
});
