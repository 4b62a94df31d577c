import { PRESETS, findPreset, type TraceEvent } from '../../../sim';
import { deriveRun } from '../../store/derive';
import { leaseLanes, ttlWedges, type LeaseSegment } from './lease';

const segmentsOf = (s: Parameters<typeof deriveRun>[0]): readonly LeaseSegment[] => leaseLanes.lanes(deriveRun(s))[0]?.data ?? [];

/** Times at which a command removed the key (DEL → 1, or the compare-and-delete script → 1). */
function deletionsMs(events: readonly TraceEvent[], key: string): number[] {
  return events.filter((e) => e.command !== undefined && e.command.includes(key) && /^(DEL|EVAL)/.test(e.command) && /\(integer\) 1/.test(e.reply ?? '') && !/PEXPIRE|pexpire/.test(e.command)).map((e) => e.atMs);
}

describe('the lease lane\'s TTL ramp', () => {
  it.each(PRESETS.flatMap((p) => [[p.id, 'without', p.withoutFix], [p.id, 'with', p.withFix]] as const))('%s %s: never runs past the end of its segment', (_id, _v, s) => {
    for (const seg of segmentsOf(s)) {
      for (const w of ttlWedges(seg)) {
        expect(w.toMs).toBeLessThanOrEqual(seg.endMs);
        expect(w.fromMs).toBeGreaterThanOrEqual(seg.startMs);
        expect(w.toMs).toBeGreaterThanOrEqual(w.fromMs);
      }
    }
  });

  it.each([['unsafe-release', 'withoutFix'], ['unsafe-release', 'withFix'], ['manual-unlock', 'withoutFix']] as const)('%s %s: a key deleted before its TTL ran out ends its segment and its ramp at the deletion', (id, v) => {
    const s = findPreset(id)![v];
    const run = deriveRun(s);
    const segs = segmentsOf(s);
    const dels = deletionsMs(run.events, s.lease.key);
    expect(dels.length).toBeGreaterThan(0);
    for (const t of dels) {
      const seg = segs.find((x) => x.endMs === t);
      expect(seg, `a segment ends at the deletion at ${t} ms`).toBeDefined();
      const w = ttlWedges(seg!).at(-1)!;
      expect(w.toMs).toBe(t);
      // Its TTL had not run out: the ramp stops with height left, instead of sloping on to the expiry.
      if (seg!.expiresAtMs! > t) expect(w.toFraction).toBeGreaterThan(0);
    }
  });
});
