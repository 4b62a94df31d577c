/**
 * `npm run test:fidelity`: proves the model against real PostgreSQL and Redis.
 *
 * 1. Checks both servers answer (PGHOST/PGPORT/PGUSER/PGDATABASE, REDIS_HOST/REDIS_PORT; defaults
 *    127.0.0.1:5432 user postgres database test, 127.0.0.1:6379).
 * 2. Hand-written cases for every rule of the project's semantics notes ("The semantics Lockscope must reproduce") the model implements.
 * 3. Replays the SQL and Redis commands of every preset's trace (both variants).
 * 4. Generated sequences (fast-check; FIDELITY_SEED to repeat a run, FIDELITY_RUNS for the SQL count,
 *    default 500; FIDELITY_LANES parallel lanes, default 2).
 * Prints a summary table and the simplifications left out of the comparison; exits 1 on any
 * disagreement, 2 when a server does not answer.
 */
import { newClient } from './pgReal';
import { newRedis, runRedisCase, REDIS_CONFIG } from './redisHarness';
import { PG_CONFIG } from './pgReal';
import { SQL_CASES } from './sqlCases';
import { REDIS_CASES } from './redisCases';
import { runSqlCase } from './sqlHarness';
import { replayPresets } from './presetReplay';
import { runGeneratedRedis, runGeneratedSql } from './generated';
import type { CaseResult, Primitive } from './types';

const started = performance.now();
const seed = process.env.FIDELITY_SEED ? Number(process.env.FIDELITY_SEED) : Math.floor(Math.random() * 2 ** 31);
const sqlRuns = Number(process.env.FIDELITY_RUNS ?? 500);
const lanes = Number(process.env.FIDELITY_LANES ?? 2);
const redisUntimed = Number(process.env.FIDELITY_REDIS_RUNS ?? 300);
const redisTimed = Number(process.env.FIDELITY_REDIS_TIMED ?? 40);

async function checkServers(): Promise<string[]> {
  const problems: string[] = [];
  const pg = newClient();
  try {
    await pg.connect();
    const r = await pg.query('SHOW server_version');
    console.log(`PostgreSQL ${(r.rows[0] as { server_version: string }).server_version} at ${PG_CONFIG.host}:${PG_CONFIG.port} (database ${PG_CONFIG.database})`);
  } catch (e) {
    problems.push(`PostgreSQL does not answer at ${PG_CONFIG.host}:${PG_CONFIG.port} as ${PG_CONFIG.user}, database ${PG_CONFIG.database}: ${(e as Error).message}`);
  } finally {
    await pg.end().catch(() => undefined);
  }
  const redis = newRedis();
  try {
    await Promise.race([redis.connect(), new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 3000))]);
    const info = String(await redis.call('INFO', 'server'));
    console.log(`Redis ${/redis_version:(\S+)/.exec(info)?.[1] ?? '?'} at ${REDIS_CONFIG.host}:${REDIS_CONFIG.port}`);
  } catch (e) {
    problems.push(`Redis does not answer at ${REDIS_CONFIG.host}:${REDIS_CONFIG.port}: ${(e as Error).message}`);
  } finally {
    redis.disconnect();
  }
  return problems;
}

const serverProblems = await checkServers();
if (serverProblems.length > 0) {
  for (const p of serverProblems) console.error(`✗ ${p}`);
  console.error('Start them with `bash scripts/ensure-services.sh` (or point PGHOST/PGPORT/PGUSER/PGDATABASE and REDIS_HOST/REDIS_PORT at yours).');
  process.exit(2);
}
console.log(`fidelity seed ${seed} (repeat with FIDELITY_SEED=${seed}); ${sqlRuns} generated SQL sequences in ${lanes} lanes, ${redisUntimed} + ${redisTimed} generated Redis sequences\n`);

const results: CaseResult[] = [];
const failures: string[] = [];
const notes: string[] = [];

function report(r: CaseResult): void {
  results.push(r);
  if (r.outcome === 'disagree') {
    failures.push([`${r.primitive} — ${r.name}: DISAGREEMENT`, ...r.transcript.map((l) => `    ${l}`), ...r.problems.map((p) => `  ✗ ${p}`)].join('\n'));
  }
}

let t = performance.now();
for (const c of SQL_CASES) report(await runSqlCase(c));
const redisConn = newRedis();
await redisConn.connect();
// Timed cases run concurrently (each has its own connection and key prefix).
await Promise.all(REDIS_CASES.map(async (c) => {
  const conn = newRedis();
  await conn.connect();
  try {
    report(await runRedisCase(c, conn));
  } finally {
    conn.disconnect();
  }
}));
redisConn.disconnect();
const handMs = performance.now() - t;

t = performance.now();
const replay = await replayPresets();
replay.results.forEach(report);
notes.push(...replay.notes);
const replayMs = performance.now() - t;

t = performance.now();
const genSql = await runGeneratedSql(seed, sqlRuns, lanes);
const genRedis = await runGeneratedRedis(seed, redisUntimed, redisTimed);
for (const r of [...genSql.results, ...genRedis.results]) results.push(r);
failures.push(...genSql.failures, ...genRedis.failures);
const genMs = performance.now() - t;

// ---- summary ----
const ORDER: Primitive[] = [
  'advisory locks', 'unique inserts', 'row locks', 'transactions', 'sessions & cancel', 'preset replay (SQL)', 'generated SQL',
  'Redis strings/TTL', 'Redis scripts', 'Redis expiry (timed)', 'preset replay (Redis)', 'generated Redis',
];
const rows = ORDER.map((p) => {
  const rs = results.filter((r) => r.primitive === p);
  return [p, rs.length, rs.filter((r) => r.outcome === 'agree').length, rs.filter((r) => r.outcome === 'disagree').length, rs.filter((r) => r.outcome === 'excluded').length] as const;
});
const total = ['total', results.length, results.filter((r) => r.outcome === 'agree').length, results.filter((r) => r.outcome === 'disagree').length, results.filter((r) => r.outcome === 'excluded').length] as const;
const header = ['primitive', 'sequences', 'agree', 'disagree', 'excluded'];
const widths = header.map((h, i) => Math.max(h.length, ...[...rows, total].map((r) => String(r[i]).length)));
const line = (cells: readonly (string | number)[]): string => cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i] ?? 0) : String(c).padStart(widths[i] ?? 0))).join('  ');

for (const f of failures) console.log(`\n${f}`);
console.log('\nFidelity summary (model vs PostgreSQL / Redis)');
console.log(line(header));
console.log(widths.map((w) => '-'.repeat(w)).join('  '));
rows.forEach((r) => console.log(line(r)));
console.log(widths.map((w) => '-'.repeat(w)).join('  '));
console.log(line(total));

const excludedCounts = new Map<string, number>();
for (const r of results) {
  if (r.excludedBecause) {
    const reason = r.excludedBecause.replace(/^wait cycle [^:]*:/, 'wait cycle:');
    excludedCounts.set(reason, (excludedCounts.get(reason) ?? 0) + 1);
  }
}
const replayedRedis = results.filter((r) => r.primitive === 'preset replay (Redis)');
const notReplayed = replayedRedis.map((r) => /(\d+) later commands not replayed/.exec(r.transcript[0] ?? '')?.[1]).reduce((s, n) => s + Number(n ?? 0), 0);

console.log('\nDeliberate simplifications, left out of the comparison:');
const simplifications = [
  'No deadlock detector: a sequence is compared up to the step that closes a wait cycle (PostgreSQL would fail one transaction with 40P01 after deadlock_timeout, or reorder a soft cycle); the model hangs.',
  'Several statements waiting for one uncommitted key, released together by a rollback: which one wins is a race in PostgreSQL; the model picks the earliest waiter. Compared up to that step.',
  'READ COMMITTED only: REPEATABLE READ / SERIALIZABLE (40001) are not modelled and not generated.',
  'lock_timeout / statement_timeout are caller-driven in the model (cancelWaiting); the suite lets the server’s own lock_timeout fire and compares the result, but does not compare timing.',
  'Statements released together by one step run concurrently on the server: their relative order is compared as a set; order is compared where one release follows from another.',
  'Row order of a result without ORDER BY is unspecified in SQL: multi-row results are compared as sets.',
  'Redis expiry at the exact millisecond: the model drops a key at now >= expiry, Redis at now > expiry. Timed cases keep commands at least 50 ms from any expiry instant; PTTL is compared within the scheduling lateness.',
  'Redis integers beyond 2^53 (the model keeps integer replies as JS numbers) and TTLs beyond 2^53 ms are not generated.',
  `Preset replay of Redis stops at the first TTL expiry, forced expiry, clock jump or failover (TTLs of 5–60 s are literal in the commands, so time cannot be compressed); ${notReplayed} later commands were not replayed — the same patterns run in the timed cases with short TTLs. Commands of a worker cut off from Redis never reach the server and are skipped.`,
  'Replication, failover and clock jumps of Redis are model faults with no single-server equivalent: not compared.',
];
simplifications.forEach((s) => console.log(`  - ${s}`));
if (excludedCounts.size > 0) {
  console.log('  Sequences stopped at such a step in this run:');
  for (const [reason, n] of excludedCounts) console.log(`    ${n} × ${reason}`);
}
for (const n of notes) console.log(`  note: ${n}`);

const disagreements = total[3];
console.log(`\nseed ${seed}; hand-written ${(handMs / 1000).toFixed(1)} s, preset replay ${(replayMs / 1000).toFixed(1)} s, generated ${(genMs / 1000).toFixed(1)} s; total ${((performance.now() - started) / 1000).toFixed(1)} s`);
console.log(disagreements > 0 ? `✗ ${disagreements} disagreement(s) between the model and the real servers` : '✓ the model agrees with PostgreSQL and Redis on every compared sequence');
process.exit(disagreements > 0 ? 1 : 0);
