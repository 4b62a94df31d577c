/**
 * The destination of a job's external effect: a file store (uploads take time; overlapping
 * uploads of one path are visible) or an external API (email, payment). Either may check fencing
 * tokens (reject a token lower than the highest accepted — Kleppmann, "How to do distributed
 * locking") and/or honour idempotency keys (a repeated key replays the first result and performs
 * nothing; while the first request with that key is still in flight, the repeat is refused with
 * 409 and the caller retries later — ../shared/semantics.md, "Idempotency keys while a request is
 * in flight"). A request is answered when it ends: until then its reply is `PENDING_REPLY`.
 * Pure: time is passed in.
 */
import type { DestinationConfig } from '../scenario/schema';

/**
 * Status of one write: in flight (uploading, or the API has not answered yet), accepted, rejected
 * (stale token), deduplicated (idempotency key seen, the first request finished), conflict (the
 * same idempotency key is still in flight: 409, retry later), aborted (writer crashed).
 */
export type WriteStatus = 'inFlight' | 'accepted' | 'rejected' | 'deduplicated' | 'conflict' | 'aborted';

/** The reply of a request that has not been answered yet (the trace shows it at the request's start). */
export const PENDING_REPLY = '(pending: no reply yet)';

/** The reply of an API call whose caller died before the answer arrived (the effect may still have happened). */
export const NO_REPLY_CALLER_GONE = '(no reply received: the caller crashed)';

/** One write (upload or API call) as the destination saw it. Times in virtual ms. */
export interface DestinationWrite {
  readonly id: number;
  readonly worker: string;
  readonly startMs: number;
  endMs: number | null;
  readonly token: number | null;
  readonly idempotencyKey: string | null;
  status: WriteStatus;
  /** Whether this write performed the effect (an API call is performed when it is received; an upload when it completes). */
  performed: boolean;
  /** The reply text the writer has received so far: `PENDING_REPLY` while in flight, then the answer. */
  reply: string;
}

/** Plain data copy of the destination for inspection and scrubbing. */
export interface DestinationSnapshot {
  readonly highestTokenAccepted: number | null;
  readonly writes: readonly DestinationWrite[];
}

/** The simulated file store or external API. */
export class Destination {
  private highest: number | null = null;
  private readonly writes: DestinationWrite[] = [];
  private readonly keys = new Map<string, DestinationWrite>();

  constructor(readonly config: DestinationConfig) {}

  /** The literal request a writer sends, e.g. `PUT exports/2026-11-30.csv Fencing-Token: 33`. */
  renderRequest(token: number | null, idempotencyKey: string | null): string {
    const verb = this.config.kind === 'file' ? `PUT ${this.config.target}` : this.config.target;
    return `${verb}${token === null ? '' : ` Fencing-Token: ${token}`}${idempotencyKey === null ? '' : ` Idempotency-Key: ${idempotencyKey}`}`;
  }

  /**
   * A write starts at nowMs. Checks the fencing token (if the store checks) and the idempotency
   * key (if it honours them); an API call performs its effect here, an upload at `finish`.
   */
  begin(nowMs: number, worker: string, token: number | null, idempotencyKey: string | null): DestinationWrite {
    const { checksFencing, honoursIdempotencyKeys, kind } = this.config;
    const write: DestinationWrite = { id: this.writes.length + 1, worker, startMs: nowMs, endMs: null, token, idempotencyKey, status: 'inFlight', performed: false, reply: '' };
    this.writes.push(write);
    const seen = idempotencyKey !== null && honoursIdempotencyKeys ? this.keys.get(idempotencyKey) : undefined;
    if (seen && seen.status === 'inFlight') {
      write.status = 'conflict';
      write.endMs = nowMs;
      write.reply = `409 Conflict: a request with idempotency key ${idempotencyKey} is still in progress (write #${seen.id}); retry later`;
      return write;
    }
    if (seen) {
      write.status = 'deduplicated';
      write.endMs = nowMs;
      write.reply = `200 OK (replayed write #${seen.id}: idempotency key seen, nothing performed)`;
      return write;
    }
    if (checksFencing && token !== null && this.highest !== null && token < this.highest) {
      write.status = 'rejected';
      write.endMs = nowMs;
      write.reply = `409 Conflict: stale fencing token ${token} (highest accepted ${this.highest})`;
      return write;
    }
    if (token !== null && (this.highest === null || token > this.highest)) this.highest = token;
    if (idempotencyKey !== null && honoursIdempotencyKeys) this.keys.set(idempotencyKey, write);
    if (kind === 'api') write.performed = true;
    write.reply = PENDING_REPLY;
    return write;
  }

  /**
   * The write completes at nowMs: an upload is finalised (re-checking its fencing token: a newer
   * token accepted while it was uploading makes it stale) and the API response arrives. An API
   * call is judged once, on receipt (`begin`), where it also performed its effect: its response
   * is 201 whatever was accepted meanwhile (a 409 after the effect would tell the caller nothing
   * happened when it did).
   */
  finish(nowMs: number, writeId: number): DestinationWrite {
    const write = this.get(writeId);
    if (write.status !== 'inFlight') return write;
    write.endMs = nowMs;
    if (this.config.kind === 'file' && this.config.checksFencing && write.token !== null && this.highest !== null && write.token < this.highest) {
      write.status = 'rejected';
      write.reply = `409 Conflict: stale fencing token ${write.token} (a newer token ${this.highest} was accepted during the upload)`;
      return write;
    }
    write.status = 'accepted';
    if (this.config.kind === 'file') {
      write.performed = true;
      write.reply = '200 OK (upload complete)';
    } else write.reply = '201 Created';
    return write;
  }

  /** The writer died mid-write: an unfinished upload is discarded; an API call already received stays performed. */
  abort(nowMs: number, writeId: number): DestinationWrite {
    const write = this.get(writeId);
    if (write.status !== 'inFlight') return write;
    write.endMs = nowMs;
    if (this.config.kind === 'api') {
      write.status = 'accepted';
      write.reply = NO_REPLY_CALLER_GONE;
    } else {
      write.status = 'aborted';
      write.reply = 'upload aborted (connection closed)';
    }
    return write;
  }

  /** Every write so far, in arrival order (live objects: do not mutate). */
  allWrites(): readonly DestinationWrite[] {
    return this.writes;
  }

  /** The highest fencing token accepted so far, or null. */
  highestTokenAccepted(): number | null {
    return this.highest;
  }

  /** A deep copy for inspection. */
  snapshot(): DestinationSnapshot {
    return { highestTokenAccepted: this.highest, writes: this.writes.map((w) => ({ ...w })) };
  }

  private get(writeId: number): DestinationWrite {
    const write = this.writes[writeId - 1];
    if (!write) throw new Error(`no destination write #${writeId}`);
    return write;
  }
}
