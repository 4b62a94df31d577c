/** Small readers of event data shared by the checkers. */
import type { DbReply } from '../resources/sqlTypes';

/**
 * The statement succeeded with exactly the command tag `tag` (`INSERT 0 1`, `UPDATE 1`, `COMMIT`)
 * and no warning — what psql prints first on its reply line. Exact, not a prefix: `UPDATE 10` is not
 * `UPDATE 1` (PostgreSQL's command tag carries the row count; protocol docs, "CommandComplete").
 */
export function isOk(reply: DbReply, tag: string): boolean {
  return reply.status === 'ok' && reply.warning === undefined && reply.tag === tag;
}
