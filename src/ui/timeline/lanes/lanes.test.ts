import { findPreset, parseScenario } from '../../../sim';
import { leaseLanes } from './lease';
import { deriveRun } from '../../store/derive';
import { laneOfFault } from '../../faults/faultCatalog';
import { buildLanes, laneIdOf, lanesOf } from '.';
import { layoutLanes, AXIS_H, MARKS_H } from '../layout';
import { destinationLanes, type WriteBar } from './destination';
import { databaseLanes } from './database';
import { scenario, steps } from '../../../sim/presets/build';

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

  it('a lease in etcd (lockService): the lane follows etcd\'s key — A with revision 33, gone when its lease ran out, B with 35', async () => {
    const { readFileSync } = await import('node:fs');
    const parsed = parseScenario(JSON.parse(readFileSync(new URL('../../../sim/scenario/fixtures/scenario-v2-etcd.json', import.meta.url), 'utf8')));
    if (!parsed.ok) throw new Error('the etcd fixture does not validate');
    const r = deriveRun(parsed.scenario);
    const lease = lanesOf(r).lanes.find((l) => l.ref.kind === 'lease')!;
    expect(lease.label).toBe('locks/export');
    const segs = leaseLanes.lanes(r)[0]!.data;
    expect(segs.map((x) => `${x.owner} token ${x.token} ${x.startMs}–${x.endMs}`)).toEqual(['A token 33 0–10000', 'B token 35 10000–25000']);
    expect(lease.note?.text(1_000)).toBe('A: TTL 9 s');
    expect(lease.note?.text(12_000)).toMatch(/^B: TTL /);
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

  it('the destination lane shows a request as pending from when it is sent until its reply arrives', () => {
    // remote-call-in-txn: A's POST /v1/payments is sent at 0 ms and answered at 3 s.
    const r = run('remote-call-in-txn');
    const dest = lanesOf(r).lanes.find((l) => l.ref.kind === 'destination')!;
    expect(dest.note?.text(0)).toMatch(/^A: pending \(no reply yet\)/);
    expect(dest.note?.text(2_999)).toMatch(/^(.*, )?A(, .*)?: pending \(no reply yet\)$/);
    expect(dest.note?.text(3_000)).not.toMatch(/^(.*, )?A(, |:)/);
    // Several requests pending at once: one short phrase, not one per request.
    expect(dest.note?.text(300)).toBe('A, B: pending (no reply yet)'); // C and D still wait for a pooled connection
    const sent = r.events.find((e) => e.actor === 'A' && e.kind === 'destination' && e.atMs === 0)!;
    const answered = r.events.find((e) => e.actor === 'A' && e.kind === 'destination' && e.atMs === 3_000)!;
    expect([sent.command, sent.reply]).toEqual(['POST /v1/payments', '(pending: no reply yet)']);
    expect([answered.command, answered.reply, answered.narration]).toEqual(['POST /v1/payments', '201 Created', "A's call returns: 201 Created."]);
    const title = dest.items({ y: 0, h: dest.h, X: (ms: number) => ms / 100, W: (s: number, e: number) => Math.max(2, (e - s) / 100), plotW: 800, uid: 'u', obstacles: [], showFindings: true })[0]!.label;
    expect(title).toMatch(/^Write #1 by A/);
  });

  it('draws a duplicate write as such only when findings are shown', () => {
    const r = run('export-lease-expiry');
    const dest = lanesOf(r).lanes.find((l) => l.ref.kind === 'destination')!;
    const ctx = (showFindings: boolean) => ({ y: 100, h: dest.h, X: (ms: number) => ms / 100, W: (s: number, e: number) => Math.max(2, (e - s) / 100), plotW: 800, uid: 'u', obstacles: [], showFindings });
    const labels = (show: boolean) => dest.items(ctx(show)).map((i) => i.label);
    // export-lease-expiry checks overlaps and stale tokens, not repeats: A's upload is a duplicate
    // (a second upload for job key export-2026-11-30) that the verdict names as a note.
    expect(labels(true).filter((l) => l?.includes('DUPLICATE'))).toEqual(["Write #2 by A: DUPLICATE (a repeat for export-2026-11-30, which this scenario's invariants do not check: not a violation the verdict counts)"]);
    expect(labels(false).some((l) => l?.includes('DUPLICATE'))).toBe(false);
  });

  it('marks as DUPLICATE exactly the writes src/sim counts as duplicates: one definition for the mark, the metric and the verdict', () => {
    const dupLabels = (r: ReturnType<typeof run>) => {
      const writes: readonly WriteBar[] = destinationLanes.lanes(r)[0]!.data;
      return writes.filter((w) => w.duplicate !== null).map((w) => [w.id, w.duplicate]);
    };
    // remote-call-in-txn with the fix: four payments for four job keys — no duplicate anywhere.
    const rc = run('remote-call-in-txn', 'withFix');
    expect(rc.snapshots.at(-1)!.destination.writes.filter((w) => w.performed)).toHaveLength(4);
    expect(dupLabels(rc)).toEqual([]);
    expect(rc.metrics.duplicateEffects).toBe(0);
    expect(rc.verdict.status).toBe('held');
    expect(rc.verdict.notes).toEqual([]);
    // fence-ignored: the second e-mail is a duplicate the verdict counts as a violation (red).
    const fi = run('fence-ignored');
    expect(dupLabels(fi)).toEqual([[2, 'violation']]);
    expect(fi.metrics.duplicateEffects).toBe(1);
    expect(fi.verdict.violations.map((v) => v.invariant)).toEqual(['effectOnce']);
    // export-lease-expiry with the fix, A crashed and restarted at 10 s: A's retry uploads after B;
    // B's upload repeats job key export-2026-11-30 — a duplicate the Held verdict names as a note.
    const s = findPreset('export-lease-expiry')!.withFix;
    const crashed = deriveRun({ ...s, faults: [...s.faults, { kind: 'crash', worker: 'A', atMs: 10_000, restartAfterMs: 1_000 }] });
    expect(dupLabels(crashed)).toEqual([[2, 'note']]);
    expect(crashed.metrics.duplicateEffects).toBe(1);
    expect(crashed.verdict.status).toBe('held');
    expect(crashed.verdict.notes.map((n) => n.message)).toEqual(['exports/2026-11-30.csv (job key export-2026-11-30) was performed 2 times — a duplicate this scenario\'s invariants do not check']);
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

describe('database lane marks (issue 10)', () => {
  it('marks the FATAL of a session the server ended (idle_in_transaction_session_timeout) like an error, and the 40001 of serializable-retry', () => {
    const idle = scenario({
      id: 'idle', title: 'idle in transaction', description: 'A works 5 s inside its transaction.', lesson: 'locks', horizonMs: 10_000,
      job: { kind: 'debit', accountId: 1, initialBalance: 100 },
      database: { poolSize: 2, idleInTransactionSessionTimeoutMs: 1_000 },
      workers: [{ id: 'A', startMs: 0, steps: steps('begin', 'read', ['work', 5_000], ['effect', 0], 'commit') }],
      invariants: [{ kind: 'noLostUpdate' }],
    });
    const r = deriveRun(idle);
    const fatal = r.events.filter((e) => (e.reply ?? '').startsWith('FATAL 25P03'));
    expect(fatal.length).toBeGreaterThan(0);
    const marks = databaseLanes.lanes(r)[0]!.data.marks;
    for (const e of fatal) expect(marks).toContainEqual(expect.objectContaining({ kind: 'error', eventId: e.id }));
    const retried = databaseLanes.lanes(run('serializable-retry'))[0]!.data;
    expect(retried.marks.some((m) => m.kind === 'error' && m.label.startsWith('B: ERROR 40001'))).toBe(true);
    // Expected and retried: an error reply, cited by no violation (drawn as such, not in the violation's red).
    const fixed = databaseLanes.lanes(run('serializable-retry', 'withFix'))[0]!.data;
    expect(fixed.marks.filter((m) => m.kind === 'error').map((m) => m.cited)).toEqual([false]);
  });
});
