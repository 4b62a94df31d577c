/**
 * Lease lanes: one per lease key (the fencing counter is not a lease), a segment per value the
 * key held (from the snapshots: the lease store's own state after every event) with its owner,
 * fencing token and the remaining-TTL ramp. A segment ends where the store stopped holding that
 * value: a DEL or compare-and-delete, an operator, a failover that lost the key, its expiry, a new
 * owner. Its TTL is piecewise: each renewal, a SET without PX, or a clock jump changes the key's
 * expiry from that event on, never before it.
 */
import { leaseEntriesOf } from '../../../sim';
import type { TraceEvent } from '../../../sim';
import type { RedisCmd, RedisReply } from '../../../sim/resources/redisTypes';
import { runEndMs } from '../../store/derive';
import { fmtSeconds } from '../../faults/faultCatalog';
import { lineBox, placeText, yOf } from '../fit';
import { TEXT_BASELINE } from './types';
import type { G } from '../draw/items';
import { touches, type LaneKind } from './types';

/** A span of a lease segment during which the key's expiry stayed the same. */
export interface TtlPiece {
  readonly fromMs: number;
  readonly toMs: number;
  /** When the key expires per its TTL over this piece (null: no TTL). */
  readonly expiresAtMs: number | null;
}

/** A span during which the lease key had one value. */
export interface LeaseSegment {
  readonly startMs: number;
  readonly endMs: number;
  /** Owner token stored as the key's value. */
  readonly value: string;
  /** Worker whose owner token this is (who SET it, else who believes it; the value when nobody). */
  readonly owner: string;
  readonly token: number | null;
  /** The key's expiry over the segment, piece by piece: contiguous, from `startMs` to `endMs`. */
  readonly ttl: readonly TtlPiece[];
  /** The expiry in effect at the segment's end (its last piece's; null: no TTL). */
  readonly expiresAtMs: number | null;
  /** The key still holds this value where the run is cut at a cursor (`DerivedRun.shownToMs`): `endMs` is the cut. */
  readonly soFar?: boolean;
}

/** One piece of the remaining-TTL ramp: heights are the TTL left as a fraction of the lane's scale. */
export interface TtlWedge {
  readonly fromMs: number;
  readonly toMs: number;
  readonly fromFraction: number;
  readonly toFraction: number;
}

/** The lane's TTL scale: the longest TTL any piece started with (ms; at least 1). */
export function ttlScaleMs(segments: readonly LeaseSegment[]): number {
  return Math.max(1, ...segments.flatMap((s) => s.ttl.map((p) => (p.expiresAtMs === null ? 0 : p.expiresAtMs - p.fromMs))));
}

/**
 * The remaining-TTL ramp of a segment, one wedge per piece with a TTL: from the piece's start
 * towards its expiry, cut where the piece ends — a renewal, a `DEL`, a compare-and-delete, an
 * operator, a failover, a new owner — so it never runs past the segment. Heights are the TTL left
 * over `scaleMs` (ttlScaleMs), so a renewal shows as the ramp rising again and a clock jump as it
 * dropping; `toFraction` is 0 where the key expired.
 */
export function ttlWedges(s: LeaseSegment, scaleMs = ttlScaleMs([s])): TtlWedge[] {
  const frac = (leftMs: number) => Math.max(0, Math.min(1, leftMs / scaleMs));
  return s.ttl.flatMap((p) => {
    if (p.expiresAtMs === null) return [];
    const toMs = Math.max(p.fromMs, Math.min(p.expiresAtMs, p.toMs));
    return [{ fromMs: p.fromMs, toMs, fromFraction: frac(p.expiresAtMs - p.fromMs), toFraction: frac(p.expiresAtMs - toMs) }];
  });
}

/** The TTL piece of a segment in effect at `atMs` (the last one at its end). */
export function ttlPieceAt(s: LeaseSegment, atMs: number): TtlPiece | undefined {
  return s.ttl.find((p) => p.fromMs <= atMs && atMs < p.toMs) ?? (atMs === s.endMs ? s.ttl.at(-1) : undefined);
}

/** Names a lease key's lane. */
export interface LeaseLaneRef { readonly kind: 'lease'; readonly key: string }

/** Faults on the lease store: a lease lane is shown for them even when no lock uses the lease. */
const LEASE_FAULTS = ['expireLease', 'manualDelete', 'failover', 'clockJump'];

/** Redis commands and the key expiries the store reports. */
const LEASE_TRACE_KINDS = ['redis', 'expiry', 'etcd'];

type OpenLease = { startMs: number; value: string; owner: string; token: number | null; ttl: { fromMs: number; toMs: number; expiresAtMs: number | null }[] };

/** Who wrote each value into `key`, from the trace's successful SET calls (value → caller). */
function writersOf(events: readonly TraceEvent[], key: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of events) {
    if (e.call?.resource !== 'redis') continue;
    const cmd = e.call.command as RedisCmd;
    if (cmd.op === 'SET' && cmd.key === key && (e.call.reply as RedisReply).kind === 'ok') out.set(cmd.value, e.call.caller);
  }
  return out;
}

/** The lease lane kind. */
export const leaseLanes: LaneKind<LeaseLaneRef, readonly LeaseSegment[]> = {
  kind: 'lease',
  background: 'var(--lane-lease)',
  traceKinds: LEASE_TRACE_KINDS,
  idOf: (ref) => `lease-${ref.key}`,

  lanes(run) {
    const { events, snapshots, scenario } = run;
    const endMs = runEndMs(run);
    const leaseSegs: LeaseSegment[] = [];
    const leaseKey = scenario.lease.key;
    const writers = writersOf(events, leaseKey);
    const L: { cur: OpenLease | null } = { cur: null };
    const lastExpiry = (o: OpenLease) => o.ttl.at(-1)!.expiresAtMs;
    const close = (atMs: number, soFar = false) => {
      const o = L.cur;
      if (!o) return;
      const end = Math.max(atMs, o.startMs);
      o.ttl.at(-1)!.toMs = end;
      leaseSegs.push({ startMs: o.startMs, endMs: end, value: o.value, owner: o.owner, token: o.token, ttl: o.ttl.map((p) => ({ ...p })), expiresAtMs: lastExpiry(o), ...(soFar ? { soFar } : {}) });
      L.cur = null;
    };
    snapshots.forEach((snap, i) => {
      const atMs = events[i]?.atMs ?? snap.atMs;
      // Redis's lease store, or etcd's keys when the lease lives there (lockService).
      const lease = leaseEntriesOf(snap).find((l) => l.key === leaseKey);
      // A key whose TTL ran out is gone from then on, even before the expiry event (Redis expires at the exact millisecond).
      const exp = L.cur ? lastExpiry(L.cur) : null;
      if (exp !== null && exp <= atMs) close(exp);
      if (!lease) return close(atMs);
      const believer = snap.workers.find((w) => w.beliefs.ownerToken === lease.value);
      const cur = L.cur;
      if (!cur || cur.value !== lease.value) {
        close(atMs);
        const owner = writers.get(lease.value) ?? believer?.id ?? lease.value;
        const tokenHolder = snap.workers.find((w) => w.id === owner);
        L.cur = { startMs: atMs, value: lease.value, owner, token: tokenHolder?.beliefs.ownerToken === lease.value ? tokenHolder.beliefs.fencingToken : null, ttl: [{ fromMs: atMs, toMs: atMs, expiresAtMs: lease.expiresAtMs }] };
        return;
      }
      const last = cur.ttl.at(-1)!;
      if (last.expiresAtMs !== lease.expiresAtMs) {
        // A renewal, a SET without PX, a clock jump: the new expiry holds from this event on.
        if (last.fromMs === atMs) last.expiresAtMs = lease.expiresAtMs;
        else {
          last.toMs = atMs;
          cur.ttl.push({ fromMs: atMs, toMs: atMs, expiresAtMs: lease.expiresAtMs });
        }
      }
      if (cur.token === null) {
        const holder = snap.workers.find((w) => w.id === cur.owner);
        if (holder?.beliefs.ownerToken === cur.value && holder.beliefs.fencingToken != null) cur.token = holder.beliefs.fencingToken;
      }
    });
    const finalExp = L.cur ? lastExpiry(L.cur) : null;
    // Cut at the cursor (the future hidden), a value the key still holds there is held so far, not gone.
    close(finalExp !== null ? Math.min(finalExp, endMs) : endMs, run.shownToMs !== undefined && (finalExp === null || finalExp > endMs));
    const shown = scenario.mechanism.lock === 'lease' || leaseSegs.length > 0 || scenario.faults.some((f) => LEASE_FAULTS.includes(f.kind))
      || touches(run, LEASE_TRACE_KINDS);
    return shown
      ? [{ ref: { kind: 'lease', key: leaseKey }, label: leaseKey, ariaLabel: `Lease ${leaseKey}: owner and fencing token over time`, h: 36, data: leaseSegs }]
      : [];
  },

  items(segments, { X, W, y, h, plotW, obstacles }, lane) {
    const key = lane.ref.key;
    const scaleMs = ttlScaleMs(segments);
    return segments.map((s) => {
      const rx = X(s.startMs);
      const rw = W(s.startMs, s.endMs);
      // TTL: the remaining-time ramp under the owner bar, a piece per expiry the key had; it ends
      // where the key stopped holding this value (a deleted key has no TTL left).
      const ramp = ttlWedges(s, scaleMs).map((w) => `M${X(w.fromMs)},${y + h - 4 - 11 * w.fromFraction} L${X(w.toMs)},${y + h - 4 - 11 * w.toFraction} L${X(w.toMs)},${y + h - 4} L${X(w.fromMs)},${y + h - 4} Z`).join(' ');
      const gone = s.expiresAtMs === null || s.soFar ? '' : s.endMs < s.expiresAtMs ? `, gone at ${fmtSeconds(s.endMs)} before its TTL ran out` : `, expired at ${fmtSeconds(s.expiresAtMs)}`;
      const moved = s.ttl.length > 1 ? `, its expiry changed ${s.ttl.length - 1} time${s.ttl.length === 2 ? '' : 's'}` : '';
      // Clear of the lane's marks; the baseline leaves the cursor note's strip below the bar free.
      const { text, x: textX } = placeText(Math.max(rx, 0) + 5, Math.min(rx + rw, plotW) - 4, ...yOf(lineBox(0, 0, y + TEXT_BASELINE, 13)), obstacles, 7.8, [`${s.owner}${s.token !== null ? ` · token ${s.token}` : ''}`, s.owner]);
      return {
        key: `${s.startMs}|${s.value}`,
        sig: `${rx}|${rw}|${ramp}|${y}|${h}|${s.owner}|${s.token}|${s.endMs}|${text}|${textX}`,
        label: `${key} owned by ${s.owner}${s.token !== null ? `, token ${s.token}` : ''} from ${fmtSeconds(s.startMs)}${s.soFar ? '' : ` to ${fmtSeconds(s.endMs)}`}`,
        draw: (sg: G) => {
          sg.append('rect').attr('x', rx).attr('y', y + 4).attr('width', rw).attr('height', h - 20).attr('rx', 3).attr('fill', '#b45309');
          if (ramp) sg.append('path').attr('d', ramp).attr('fill', '#f59e0b').attr('opacity', 0.6);
          sg.append('title').text(`${key} = ${s.value} (owner ${s.owner}${s.token !== null ? `, fencing token ${s.token}` : ''})${s.expiresAtMs === null ? ', no TTL' : ''}${moved}${gone}`);
          if (text) sg.append('text').attr('x', textX).attr('y', y + TEXT_BASELINE).attr('fill', '#fff').attr('font-size', 13).attr('font-weight', 700).text(text);
        },
      };
    });
  },

  // The owner and its remaining TTL at the cursor.
  cursorNote: {
    className: 'ttl',
    flipWithinPx: 110,
    text(segments, cursorMs) {
      // Cut at the cursor, the last value is still held at the cut itself (its end there is the cut's, not the key's).
      const seg = segments.find((sg) => sg.startMs <= cursorMs && (cursorMs < sg.endMs || (sg.soFar === true && cursorMs === sg.endMs)));
      const piece = seg && ttlPieceAt(seg, cursorMs);
      if (!seg || !piece) return 'free';
      return piece.expiresAtMs === null ? `${seg.owner}: no TTL` : `${seg.owner}: TTL ${fmtSeconds(Math.max(0, piece.expiresAtMs - cursorMs))}`;
    },
  },
};
