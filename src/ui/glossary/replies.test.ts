import { describe, expect, it } from 'vitest';
import { PRESETS, parseScenario, runScenario } from '../../sim';
import { explainReply, SQLSTATES } from './replies';

describe('reply glossary', () => {
  it('explains every reply any preset shows, in both variants', () => {
    const missing = new Set<string>();
    for (const p of PRESETS) for (const s of [p.withoutFix, p.withFix]) {
      for (const e of runScenario(s).events) if (e.reply !== undefined && explainReply(e.reply) === null) missing.add(e.reply);
    }
    expect([...missing]).toEqual([]);
  });

  it('an HTTP reply is explained by its own status code, never another (200 OK (upload complete) was explained as 201 Created)', () => {
    const wrong: string[] = [];
    for (const p of PRESETS) for (const s of [p.withoutFix, p.withFix]) {
      for (const e of runScenario(s).events) {
        const code = e.reply?.match(/^([1-5]\d\d) /)?.[1];
        if (!code) continue;
        const say = explainReply(e.reply!) ?? '';
        const codes = [...say.matchAll(/\b([1-5]\d\d)\b/g)].map((m) => m[1]);
        if (!codes.includes(code) || codes.some((c) => c !== code)) wrong.push(`${e.reply} → ${say}`);
      }
    }
    expect([...new Set(wrong)]).toEqual([]);
  });

  it('explains every reply of a lease in etcd (the example file and its variations)', async () => {
    const { readFileSync } = await import('node:fs');
    const base = JSON.parse(readFileSync(new URL('../../sim/scenario/fixtures/scenario-v2-etcd.json', import.meta.url), 'utf8'));
    const variants = [
      base,
      { ...base, mechanism: { ...base.mechanism, release: 'del' } },
      { ...base, faults: [{ kind: 'partition', worker: 'A', atMs: 2000, durationMs: 12_000 }] },
      { ...base, client: { ...base.client, checkRelease: true }, mechanism: { ...base.mechanism, renewal: 'none' } },
      { ...base, faults: [{ kind: 'manualDelete', atMs: 2500 }] },
    ];
    const replies = new Set<string>();
    for (const v of variants) {
      const parsed = parseScenario(v);
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
      for (const e of runScenario(parsed.scenario).events) if (e.kind === 'etcd' && e.reply !== undefined) replies.add(e.reply);
    }
    expect([...replies].filter((r) => explainReply(r) === null)).toEqual([]);
    expect([...replies].some((r) => r.startsWith('FAILURE | '))).toBe(true);
    expect(explainReply('SUCCESS | OK')).toMatch(/fencing token/);
    expect(explainReply('lease 694d71ddacfda227 granted with TTL(2s)')).toMatch(/lease of 2 s/);
    expect(explainReply('Error: failed to revoke lease (etcdserver: requested lease not found)')).toMatch(/no such lease/);
    expect(explainReply('(no reply: connection timed out)')).toMatch(/cannot tell/);
  });

  it('names the codes a reader meets', () => {
    for (const code of ['23505', '55P03', '25P02', '40001', '40P01', '57014']) expect(SQLSTATES[code]).toBeTruthy();
    expect(explainReply('ERROR 23505 duplicate key value violates unique constraint "k"')).toMatch(/unique_violation/);
    expect(explainReply('INSERT 0 1 → id=1')).toMatch(/1 row inserted/);
    expect(explainReply('SELECT 0')).toMatch(/no row matched/);
    expect(explainReply('(nil)')).toMatch(/key exists/);
    expect(explainReply('t')).toMatch(/true/);
    expect(explainReply('f')).toMatch(/false/);
    expect(explainReply('(void)')).toMatch(/void/);
    const deadlock = runScenario(PRESETS.find((p) => p.id === 'lock-order-deadlock')!.withoutFix).events.find((e) => (e.reply ?? '').startsWith('ERROR 40P01'))!;
    expect(explainReply(deadlock.reply!)).toMatch(/deadlock_detected: .*deadlock_timeout.*cycle.*locks are released/);
    expect(explainReply('200 OK (replayed write #1: idempotency key seen, nothing performed)')).toMatch(/replays/);
  });

  it('explains the application pool\'s acquire timeout (issue 10, connection topology)', () => {
    expect(explainReply('Error: timeout exceeded when trying to connect')).toMatch(/acquire timeout .*connectionTimeoutMillis.*job fails/);
  });

  it('explains the server timeouts and serialization failures (issue 10)', () => {
    expect(explainReply('ERROR 57014 canceling statement due to statement timeout')).toMatch(/query_canceled: .*statement_timeout.*aborted/);
    expect(explainReply('FATAL 25P03 terminating connection due to idle-in-transaction timeout (server closed the connection unexpectedly)')).toMatch(/^FATAL .*idle_in_transaction_session_timeout.*session-level advisory locks too.*new connection/);
    const retried = runScenario(PRESETS.find((p) => p.id === 'serializable-retry')!.withoutFix).events.find((e) => (e.reply ?? '').startsWith('ERROR 40001'))!;
    expect(explainReply(retried.reply!)).toMatch(/serialization_failure: .*SERIALIZABLE.*retried from BEGIN.*runs again/);
  });
});
