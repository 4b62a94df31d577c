/**
 * The workshop's two windows talk over a BroadcastChannel (same origin, same browser, no server).
 * Messages are checked with zod on arrival (a message is data from another window: never
 * trusted). The channel's name carries the workshop's random id (`r.ch` in the link), so two
 * workshops open in one browser do not hear each other.
 */
import { z } from 'zod';
import { MAX_LINK_CHARS } from '../../share/link';

const voteSchema = z.strictObject({
  atIndex: z.int().min(-1).max(1_000_000),
  options: z.array(z.string().max(2_000)).min(1).max(4),
  answers: z.array(z.int().min(0).max(3)).min(1).max(4),
  tally: z.array(z.int().min(0).max(9_999)).max(4),
  revealed: z.boolean(),
});

/** One message between the windows. */
export const workshopMessageSchema = z.discriminatedUnion('kind', [
  /** The presenter's state: the scenario and bookmarks as a link fragment (`key`, no cursor), the cursor, and the step. */
  z.strictObject({
    kind: z.literal('state'),
    key: z.string().max(MAX_LINK_CHARS),
    cursorIndex: z.int().min(-1).max(1_000_000),
    cursorMs: z.number().min(0).max(1e12),
    revealed: z.boolean(),
    blank: z.boolean(),
    vote: voteSchema.nullable(),
    /** Counts every state sent: the audience ignores one older than what it has. */
    seq: z.int().min(0),
  }),
  /** The audience window opened (or reloaded): the presenter answers with its state. */
  z.strictObject({ kind: z.literal('hello') }),
  /** A key pressed in the audience window (the presenter acts on it: a clicker aimed at the projector works). */
  z.strictObject({ kind: z.literal('key'), key: z.string().max(16) }),
]);

/** A message between the workshop's windows. */
export type WorkshopMessage = z.infer<typeof workshopMessageSchema>;

/** The part of BroadcastChannel the sync uses (tests pass a fake). */
export interface ChannelLike {
  postMessage(message: unknown): void;
  addEventListener(type: 'message', listener: (e: MessageEvent) => void): void;
  removeEventListener(type: 'message', listener: (e: MessageEvent) => void): void;
  close(): void;
}

/** The channel's name for a workshop id. */
export const channelName = (ch: string) => `lockscope-workshop:${ch}`;

/** Opens the workshop's channel (null where BroadcastChannel is missing). */
export function openChannel(ch: string): ChannelLike | null {
  return typeof BroadcastChannel === 'function' ? new BroadcastChannel(channelName(ch)) : null;
}

/** Listens for valid messages; invalid ones are dropped. Returns the unsubscriber. */
export function onMessage(channel: ChannelLike, fn: (m: WorkshopMessage) => void): () => void {
  const listener = (e: MessageEvent) => {
    const r = workshopMessageSchema.safeParse(e.data);
    if (r.success) fn(r.data);
  };
  channel.addEventListener('message', listener);
  return () => channel.removeEventListener('message', listener);
}
