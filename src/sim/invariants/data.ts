/** Small readers of event data shared by the checkers. */
import type { DbReply } from '../resources/sqlTypes';

/**
 * The statement succeeded with a command tag starting with `tag` (`INSERT 0 1`, `UPDATE 1`, `COMMIT`) and no
 * warning — what psql prints first on its reply line.
 */
export function isOk(reply: DbReply, tag: string): boolean {
  return reply.status === 'ok' && reply.warning === undefined && reply.tag.startsWith(tag);
}
