import type { InvariantChecker, Finding } from './types';
import type { DestinationWrite } from '../resources/destination';
import type { World } from '../engine/world';
import type { TraceEvent } from '../engine/trace';

/** The write an event reports, once it has performed the effect (API call received, upload completed). */
function performedWrite(e: TraceEvent, world: World): DestinationWrite | null {
  if (e.data?.t !== 'write') return null;
  const w = world.destination.allWrites()[e.data.writeId - 1];
  if (!w || !w.performed) return null;
  const performedNow = world.destination.config.kind === 'api' ? e.data.phase === 'begin' : e.data.phase === 'end';
  return performedNow ? w : null;
}

/** Remembers the event id that began each write. */
function beginIds() {
  const ids = new Map<number, string>();
  return {
    note(e: TraceEvent) {
      if (e.data?.t === 'write' && e.data.phase === 'begin') ids.set(e.data.writeId, e.id);
    },
    of: (writeId: number) => ids.get(writeId) ?? '',
  };
}

/** No two completed writes to one target were in flight at the same time (e.g. two overlapping uploads of one file). */
export function noOverlappingWrites(): InvariantChecker {
  const findings: Finding[] = [];
  const begins = beginIds();
  return {
    kind: 'noOverlappingWrites',
    findings,
    onEvent(e, world) {
      begins.note(e);
      if (e.data?.t !== 'write' || e.data.phase !== 'end') return;
      const mine = world.destination.allWrites()[e.data.writeId - 1];
      if (!mine || mine.status !== 'accepted') return;
      for (const other of world.destination.allWrites()) {
        if (other === mine || other.status !== 'accepted' || other.endMs === null) continue;
        const overlapStart = Math.max(other.startMs, mine.startMs);
        const overlapEnd = Math.min(other.endMs, mine.endMs ?? e.atMs);
        if (overlapStart >= overlapEnd) continue;
        const target = world.destination.config.target;
        findings.push({
          invariant: 'noOverlappingWrites',
          severity: 'violation',
          message: `${other.worker}'s and ${mine.worker}'s writes to ${target} overlapped from ${overlapStart / 1000} s to ${overlapEnd / 1000} s, and both were accepted`,
          eventIds: [begins.of(other.id), begins.of(mine.id), e.id].filter((x) => x !== '').sort(byId),
        });
      }
    },
    finish() {},
  };
}

/** The destination never accepted a fencing token lower than one it had accepted before. */
export function noStaleTokenAccepted(): InvariantChecker {
  const findings: Finding[] = [];
  let highest: { token: number; eventId: string } | null = null;
  return {
    kind: 'noStaleTokenAccepted',
    findings,
    onEvent(e, world) {
      const w = performedWrite(e, world);
      if (!w || w.token === null) return;
      if (highest && w.token < highest.token) {
        findings.push({ invariant: 'noStaleTokenAccepted', severity: 'violation', message: `the destination accepted ${w.worker}'s stale token ${w.token} after token ${highest.token}`, eventIds: [highest.eventId, e.id] });
      } else if (!highest || w.token > highest.token) highest = { token: w.token, eventId: e.id };
    },
    finish() {},
  };
}

/** The external effect happens at most once; with `harmless`, extra effects are reported as redundant, not as a violation. */
export function effectOnce(harmless: boolean): InvariantChecker {
  const findings: Finding[] = [];
  const performed: string[] = [];
  let finding: Finding | null = null;
  return {
    kind: 'effectOnce',
    findings,
    onEvent(e, world) {
      const w = performedWrite(e, world);
      if (!w) return;
      performed.push(e.id);
      if (performed.length < 2) return;
      const target = world.destination.config.target;
      const message = harmless
        ? `${target} was produced ${performed.length} times — redundant, not a violation (duplicates are harmless here)`
        : `the effect ${target} was performed ${performed.length} times`;
      if (!finding) {
        finding = { invariant: 'effectOnce', severity: harmless ? 'redundant' : 'violation', message, eventIds: [...performed] };
        findings.push(finding);
      } else {
        finding.message = message;
        finding.eventIds.push(e.id);
      }
    },
    finish() {},
  };
}

function byId(a: string, b: string): number {
  return Number(a.slice(1)) - Number(b.slice(1));
}
