import { describe, expect, it } from 'vitest';
import { PRESETS, runScenario } from '../../sim';
import { explainReply, SQLSTATES } from './replies';

describe('reply glossary', () => {
  it('explains every reply any preset shows, in both variants', () => {
    const missing = new Set<string>();
    for (const p of PRESETS) for (const s of [p.withoutFix, p.withFix]) {
      for (const e of runScenario(s).events) if (e.reply !== undefined && explainReply(e.reply) === null) missing.add(e.reply);
    }
    expect([...missing]).toEqual([]);
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
