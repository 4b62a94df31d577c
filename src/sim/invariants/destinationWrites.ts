import type { CheckerContext, InvariantChecker, Finding } from './types';
import { FindingLog } from './types';
import type { DestinationWrite } from '../resources/destination';
import { destinationCallOf, type CheckedEvent } from '../engine/trace';
import type { Scenario } from '../scenario/schema';
import { fmtMs } from '../engine/fmt';

/** The write an event reports (a copy, as it stood then), once it has performed the effect (API call received, upload completed). */
function performedWrite(e: CheckedEvent, scenario: Scenario): DestinationWrite | null {
  const call = destinationCallOf(e);
  if (e.data?.t !== 'write' || !call) return null;
  const w = call.reply;
  if (!w.performed) return null;
  const performedNow = scenario.destination.kind === 'api' ? e.data.phase === 'begin' : e.data.phase === 'end';
  return performedNow ? w : null;
}

/** Every write seen so far, as it stood at its latest event, and the id of the event that began it. */
function writeLog() {
  const writes = new Map<number, DestinationWrite>();
  const beginIds = new Map<number, string>();
  return {
    note(e: CheckedEvent) {
      const call = destinationCallOf(e);
      if (e.data?.t !== 'write' || !call) return;
      writes.set(call.reply.id, call.reply);
      if (e.data.phase === 'begin') beginIds.set(e.data.writeId, e.id);
    },
    all: () => writes.values(),
    get: (writeId: number) => writes.get(writeId),
    beginOf: (writeId: number) => beginIds.get(writeId) ?? '',
  };
}

/** No two completed writes to one target were in flight at the same time (e.g. two overlapping uploads of one file). */
export function noOverlappingWrites({ scenario, listener }: CheckerContext): InvariantChecker {
  const log = new FindingLog(listener);
  const writes = writeLog();
  return {
    kind: 'noOverlappingWrites',
    findings: log.findings,
    onEvent(e) {
      writes.note(e);
      if (e.data?.t !== 'write' || e.data.phase !== 'end') return;
      const mine = writes.get(e.data.writeId);
      if (!mine || mine.status !== 'accepted') return;
      for (const other of writes.all()) {
        if (other.id === mine.id || other.status !== 'accepted' || other.endMs === null) continue;
        const overlapStart = Math.max(other.startMs, mine.startMs);
        const overlapEnd = Math.min(other.endMs, mine.endMs ?? e.atMs);
        if (overlapStart >= overlapEnd) continue;
        const target = scenario.destination.target;
        log.publish({
          invariant: 'noOverlappingWrites',
          severity: 'violation',
          message: `${other.worker}'s and ${mine.worker}'s writes to ${target} overlapped from ${fmtMs(overlapStart)} to ${fmtMs(overlapEnd)}, and both were accepted`,
          eventIds: [writes.beginOf(other.id), writes.beginOf(mine.id), e.id].filter((x) => x !== '').sort(byId),
        });
      }
    },
    finish() {},
  };
}

/** The destination never accepted a fencing token lower than one it had accepted before. */
export function noStaleTokenAccepted({ scenario, listener }: CheckerContext): InvariantChecker {
  const log = new FindingLog(listener);
  let highest: { token: number; eventId: string } | null = null;
  return {
    kind: 'noStaleTokenAccepted',
    findings: log.findings,
    onEvent(e) {
      const w = performedWrite(e, scenario);
      if (!w || w.token === null) return;
      if (highest && w.token < highest.token) {
        log.publish({ invariant: 'noStaleTokenAccepted', severity: 'violation', message: `the destination accepted ${w.worker}'s stale token ${w.token} after token ${highest.token}`, eventIds: [highest.eventId, e.id] });
      } else if (!highest || w.token > highest.token) highest = { token: w.token, eventId: e.id };
    },
    finish() {},
  };
}

/** The external effect happens at most once; with `harmless`, extra effects are reported as redundant, not as a violation. */
export function effectOnce({ scenario, listener }: CheckerContext, harmless: boolean): InvariantChecker {
  const log = new FindingLog(listener);
  const performed: string[] = [];
  let finding: Finding | null = null;
  return {
    kind: 'effectOnce',
    findings: log.findings,
    onEvent(e) {
      const w = performedWrite(e, scenario);
      if (!w) return;
      performed.push(e.id);
      if (performed.length < 2) return;
      const target = scenario.destination.target;
      const message = harmless
        ? `${target} was produced ${performed.length} times — redundant, not a violation (duplicates are harmless here)`
        : `the effect ${target} was performed ${performed.length} times`;
      if (!finding) finding = log.publish({ invariant: 'effectOnce', severity: harmless ? 'redundant' : 'violation', message, eventIds: [...performed] });
      else finding = log.revise(finding, { ...finding, message, eventIds: [...finding.eventIds, e.id] });
    },
    finish() {},
  };
}

function byId(a: string, b: string): number {
  return Number(a.slice(1)) - Number(b.slice(1));
}
