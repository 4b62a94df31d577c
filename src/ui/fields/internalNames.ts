/**
 * What the user-words tests refuse (issue 9, "one vocabulary everywhere"): the scenario file's
 * internal identifiers shown as words — camelCase names (`renewalStall`, `fenceSource`) and dotted
 * field paths (`lease.ttlMs`, `workers[0].id`). A file name (`c1.sql`, `search/catalog.idx`) is not one.
 */

/**
 * Names of other systems' settings that a user types as they are (HikariCP's, node-postgres's),
 * shown beside our field so the reader can find it in their own configuration.
 */
const EXTERNAL_NAMES = new Set(['maximumPoolSize', 'connectionTimeoutMillis', 'connectionTimeout']);

/** The internal identifiers in `text`: camelCase words and dotted field paths. */
export function internalNames(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\b[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+\b/g)) if (!EXTERNAL_NAMES.has(m[0])) out.push(m[0]);
  // A path: two identifier segments of 2+ characters joined by '.', or an identifier with an index
  // (`workers[0]`); a file name (`c1.sql`) is not one.
  for (const m of text.matchAll(/(?<![/\w.-])\b[a-z][A-Za-z0-9]+(?:\.[a-z][A-Za-z0-9]+|\[\d+\])+/g)) if (!/\.(sql|txt|json|csv|png|svg|pdf|md)$/.test(m[0])) out.push(m[0]);
  return out;
}

