/**
 * `pg_locks` of the real server in the model's comparable form (`pgLockLine` of
 * `src/sim/resources/pgLocks.ts`), for the sessions of one case, so that the SQL harness can compare
 * the model's `Database.pgLocks()` with the server after every step.
 *
 * Mapping (PostgreSQL docs, "pg_locks"): pids → the case's session ids; relation OIDs → table
 * names (only the case schema's tables and the sequences it created: index relations and serial columns' sequences are left out, see `pgLocks.ts`); xids →
 * the session whose transaction holds the xid's ExclusiveLock (`own` for itself); advisory
 * `classid`/`objid`/`objsubid` → the key as written (`42`, `(1,2)`). Any other lock type a case
 * session holds is listed as it is, so that it shows up as a difference.
 */
import type pg from 'pg';

interface RawLock {
  pid: number;
  locktype: string;
  mode: string;
  /** `t`/`f` (the suite's client reads every value as text) or a boolean. */
  granted: boolean | string;
  relname: string | null;
  relkind: string | null;
  /** A sequence a serial column owns (the model leaves its lock out, like an index's); `t`/`f` or a boolean. */
  owned: boolean | string | null;
  nspname: string | null;
  xid: string | null;
  classid: string | null;
  objid: string | null;
  objsubid: number | string | null;
}

function isTrue(v: boolean | string): boolean {
  return v === true || v === 't';
}

/** An advisory key from `pg_locks` columns: objsubid 1 = one bigint (classid high, objid low 32 bits), 2 = two int4. */
export function advisoryKeyOf(classid: string, objid: string, objsubid: number): string {
  const hi = BigInt(classid);
  const lo = BigInt(objid);
  if (objsubid === 2) return `(${BigInt.asIntN(32, hi)},${BigInt.asIntN(32, lo)})`;
  return String(BigInt.asIntN(64, (hi << 32n) | lo));
}

/** The server's `pg_locks` lines of `pids` (pid → session id), sorted, in `pgLockLine` form. */
export async function realPgLockLines(client: pg.Client, schema: string, pids: ReadonlyMap<number, string>): Promise<string[]> {
  if (pids.size === 0) return [];
  const r = await client.query(
    `SELECT l.pid, l.locktype, l.mode, l.granted, c.relname, c.relkind, n.nspname, l.transactionid::text AS xid,
            (c.relkind = 'S' AND EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i'))) AS owned,
            l.classid::text AS classid, l.objid::text AS objid, l.objsubid
       FROM pg_locks l LEFT JOIN pg_class c ON c.oid = l.relation LEFT JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE l.pid = ANY($1::int[])`,
    [[...pids.keys()]],
  );
  const rows = r.rows as RawLock[];
  const xidOwner = new Map<string, string>();
  for (const x of rows) if (x.locktype === 'transactionid' && isTrue(x.granted) && x.mode === 'ExclusiveLock' && x.xid) xidOwner.set(x.xid, pids.get(Number(x.pid)) ?? `pid ${x.pid}`);
  const lines: string[] = [];
  for (const x of rows) {
    // SERIALIZABLE's predicate locks (SIREAD) have no line in the model's pg_locks (run.ts lists it as a simplification).
    if (x.mode === 'SIReadLock') continue;
    const s = pids.get(Number(x.pid)) ?? `pid ${x.pid}`;
    const g = isTrue(x.granted) ? 't' : 'f';
    const ours = x.nspname === schema;
    switch (x.locktype) {
      case 'relation':
        // Tables, and sequences the case created itself (nextval's RowExclusiveLock); not a serial column's sequence.
        if (ours && (x.relkind === 'r' || (x.relkind === 'S' && !isTrue(x.owned ?? false)))) lines.push(`${s} relation ${x.relname ?? '?'} ${x.mode} ${g}`);
        break;
      case 'tuple':
        lines.push(`${s} tuple ${ours ? x.relname ?? '?' : `${x.nspname ?? '?'}.${x.relname ?? '?'}`} ${x.mode} ${g}`);
        break;
      case 'virtualxid':
        lines.push(`${s} virtualxid own ${x.mode} ${g}`);
        break;
      case 'transactionid': {
        const owner = x.xid ? xidOwner.get(x.xid) : undefined;
        lines.push(`${s} transactionid ${owner === s ? 'own' : `of ${owner ?? 'a transaction outside the case'}`} ${x.mode} ${g}`);
        break;
      }
      case 'advisory':
        lines.push(`${s} advisory ${advisoryKeyOf(x.classid ?? '0', x.objid ?? '0', Number(x.objsubid ?? 1))} ${x.mode} ${g}`);
        break;
      default:
        lines.push(`${s} ${x.locktype} ? ${x.mode} ${g}`);
    }
  }
  return lines.sort();
}

/** The lines only one side has (multiset difference both ways), or null when the two agree. */
export function lockLineDiff(model: readonly string[], server: readonly string[]): { onlyModel: string[]; onlyServer: string[] } | null {
  const left = [...server];
  const onlyModel: string[] = [];
  for (const l of model) {
    const i = left.indexOf(l);
    if (i >= 0) left.splice(i, 1);
    else onlyModel.push(l);
  }
  return onlyModel.length === 0 && left.length === 0 ? null : { onlyModel, onlyServer: left };
}
