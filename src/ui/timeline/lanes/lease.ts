/**
 * Lease lanes: one per lease key (the fencing counter is not a lease), a segment per value the
 * key held (from the snapshots) with its owner, fencing token and the remaining-TTL ramp.
 */
import { leaseEntriesOf } from '../../../sim';
import { runEndMs } from '../../store/derive';
import { fmtSeconds } from '../../faults/faultCatalog';
import { fitText } from '../fit';
import type { G } from '../draw/items';
import type { LaneKind } from './types';

/** A span during which the lease key had one value. */
export interface LeaseSegment {
  readonly startMs: number;
  readonly endMs: number;
  /** Owner token stored as the key's value. */
  readonly value: string;
  /** Worker whose owner token this is (or the value when nobody claims it). */
  readonly owner: string;
  readonly token: number | null;
  /** When the key would expire per its last TTL (null: no TTL). */
  readonly expiresAtMs: number | null;
}

/**
 * The remaining-TTL ramp of a segment: from its start (full) towards its expiry (empty), cut where
 * the key stopped holding this value — a `DEL`, a compare-and-delete, an operator, a new owner —
 * so it never runs past the segment. `endFraction` is the ramp's height left at `toMs` (0 when
 * the key expired). Null when the key had no TTL.
 */
export function ttlWedge(s: LeaseSegment): { readonly fromMs: number; readonly toMs: number; readonly endFraction: number } | null {
  if (s.expiresAtMs === null) return null;
  const toMs = Math.max(s.startMs, Math.min(s.expiresAtMs, s.endMs));
  const span = s.expiresAtMs - s.startMs;
  return { fromMs: s.startMs, toMs, endFraction: span <= 0 ? 0 : Math.max(0, Math.min(1, (s.expiresAtMs - toMs) / span)) };
}

/** Names a lease key's lane. */
export interface LeaseLaneRef { readonly kind: 'lease'; readonly key: string }

/** Faults on the lease store: a lease lane is shown for them even when no lock uses the lease. */
const LEASE_FAULTS = ['expireLease', 'manualDelete', 'failover', 'clockJump'];

type OpenLease = { startMs: number; value: string; owner: string; token: number | null; expiresAtMs: number | null };

/** The lease lane kind. */
export const leaseLanes: LaneKind<LeaseLaneRef, readonly LeaseSegment[]> = {
  kind: 'lease',
  background: 'var(--lane-lease)',
  idOf: (ref) => `lease-${ref.key}`,

  lanes(run) {
    const { events, snapshots, scenario } = run;
    const endMs = runEndMs(run);
    const leaseSegs: LeaseSegment[] = [];
    const leaseKey = scenario.lease.key;
    const L: { cur: OpenLease | null } = { cur: null };
    const close = (atMs: number) => {
      if (L.cur) leaseSegs.push({ ...L.cur, endMs: Math.max(atMs, L.cur.startMs) });
      L.cur = null;
    };
    snapshots.forEach((snap, i) => {
      const atMs = events[i]?.atMs ?? snap.atMs;
      // Redis's lease store, or etcd's keys when the lease lives there (lockService).
      const lease = leaseEntriesOf(snap).find((l) => l.key === leaseKey);
      // A key past its expiry time is gone even before the expiry event.
      if (L.cur && L.cur.expiresAtMs !== null && L.cur.expiresAtMs < atMs && (!lease || lease.value !== L.cur.value)) close(L.cur.expiresAtMs);
      if (!lease) close(atMs);
      else {
        const owner = snap.workers.find((w) => w.beliefs.ownerToken === lease.value);
        if (!L.cur || L.cur.value !== lease.value) {
          close(atMs);
          L.cur = { startMs: atMs, value: lease.value, owner: owner?.id ?? lease.value, token: owner?.beliefs.fencingToken ?? null, expiresAtMs: lease.expiresAtMs };
        } else {
          L.cur.expiresAtMs = lease.expiresAtMs;
          if (L.cur.token === null && owner?.beliefs.fencingToken != null) L.cur.token = owner.beliefs.fencingToken;
        }
      }
    });
    const finalExp = L.cur ? (L.cur as OpenLease).expiresAtMs : null;
    close(finalExp !== null ? Math.min(finalExp, endMs) : endMs);
    const shown = scenario.mechanism.lock === 'lease' || leaseSegs.length > 0 || scenario.faults.some((f) => LEASE_FAULTS.includes(f.kind));
    return shown
      ? [{ ref: { kind: 'lease', key: leaseKey }, label: leaseKey, ariaLabel: `Lease ${leaseKey}: owner and fencing token over time`, h: 36, data: leaseSegs }]
      : [];
  },

  items(segments, { X, W, y, h, plotW }, lane) {
    const key = lane.ref.key;
    return segments.map((s) => {
      const rx = X(s.startMs);
      const rw = W(s.startMs, s.endMs);
      const wedge = ttlWedge(s);
      const ex = wedge ? X(wedge.toMs) : null;
      const cutShort = wedge !== null && wedge.endFraction > 0;
      const text = fitText(Math.min(rx + rw, plotW) - rx - 9, 7.8, `${s.owner}${s.token !== null ? ` · token ${s.token}` : ''}`, s.owner);
      return {
        key: `${s.startMs}|${s.value}`,
        sig: `${rx}|${rw}|${ex}|${y}|${h}|${s.owner}|${s.token}|${s.endMs}|${text}`,
        label: `${key} owned by ${s.owner}${s.token !== null ? `, token ${s.token}` : ''} from ${fmtSeconds(s.startMs)} to ${fmtSeconds(s.endMs)}`,
        draw: (sg: G) => {
          sg.append('rect').attr('x', rx).attr('y', y + 4).attr('width', rw).attr('height', h - 20).attr('rx', 3).attr('fill', '#b45309');
          // TTL: the remaining-time ramp under the owner bar.
          // It ends where the key stopped holding this value: a deleted key has no TTL left.
          if (ex !== null && wedge) sg.append('path').attr('d', `M${rx},${y + h - 15} L${ex},${y + h - 4 - 11 * wedge.endFraction} L${ex},${y + h - 4} L${rx},${y + h - 4} Z`).attr('fill', '#f59e0b').attr('opacity', 0.6);
          sg.append('title').text(`${key} = ${s.value} (owner ${s.owner}${s.token !== null ? `, fencing token ${s.token}` : ''})${s.expiresAtMs === null ? '' : cutShort ? `, gone at ${fmtSeconds(s.endMs)} before its TTL ran out` : `, expires at ${fmtSeconds(s.expiresAtMs)}`}`);
          if (text) sg.append('text').attr('x', rx + 5).attr('y', y + 18).attr('fill', '#fff').attr('font-size', 13).attr('font-weight', 700).text(text);
        },
      };
    });
  },

  // The owner and its remaining TTL at the cursor.
  cursorNote: {
    className: 'ttl',
    flipWithinPx: 110,
    text(segments, cursorMs) {
      const seg = segments.find((sg) => sg.startMs <= cursorMs && cursorMs < sg.endMs);
      return !seg ? 'free' : seg.expiresAtMs === null ? `${seg.owner}: no TTL` : `${seg.owner}: TTL ${fmtSeconds(Math.max(0, seg.expiresAtMs - cursorMs))}`;
    },
  },
};
