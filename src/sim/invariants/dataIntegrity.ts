import { sqlCallOf } from '../engine/trace';
import type { CheckerContext, InvariantChecker, Finding } from './types';
import { FindingLog } from './types';
import { isOk } from './data';

/** debit jobs: the committed balance always equals the initial balance minus every committed debit (no lost update). */
export function noLostUpdate({ scenario, listener }: CheckerContext): InvariantChecker {
  const log = new FindingLog(listener);
  const pending = new Map<string, { amount: number; eventId: string }>();
  const updates: string[] = [];
  let committedDebits = 0;
  let finding: Finding | null = null;
  const job = scenario.job;
  return {
    kind: 'noLostUpdate',
    findings: log.findings,
    onEvent(e) {
      const call = sqlCallOf(e);
      if (e.kind !== 'sql' || job.kind !== 'debit' || !call) return;
      const stmt = call.command;
      const reply = call.reply;
      const amount = scenario.workers.find((w) => w.id === e.actor)?.amount ?? 10;
      // A debit is committed only by its own transaction's COMMIT. A transaction the server ended
      // (idle_in_transaction_session_timeout) or a crash closed rolled back with no ROLLBACK
      // statement in the trace: the worker's next BEGIN opens a new transaction, whose COMMIT
      // commits none of the old one's debit (semantics.md, "Server-side timeouts and isolation").
      if (stmt.op === 'begin' && reply.status === 'ok' && reply.warning === undefined) {
        pending.delete(e.actor);
        return;
      }
      if (stmt.op === 'update' && stmt.table === 'accounts' && isOk(reply, 'UPDATE 1')) {
        updates.push(e.id);
        if (call.inTransaction === true) pending.set(e.actor, { amount, eventId: e.id });
        else committedDebits += amount;
      } else if (stmt.op === 'commit' && reply.status === 'ok' && reply.warning === undefined && reply.tag === 'COMMIT') {
        committedDebits += pending.get(e.actor)?.amount ?? 0;
        pending.delete(e.actor);
      } else return;
      // (A ROLLBACK, or a COMMIT of a failed transaction that replies ROLLBACK, leaves its debit
      // pending: only a COMMIT inside a transaction — so after the worker's next BEGIN, which drops
      // it — could count it, and a COMMIT outside one replies with a WARNING, which counts nothing.)
      const actual = call.committed?.accounts?.find((r) => r.id === job.accountId)?.balance;
      const expected = job.initialBalance - committedDebits;
      if (typeof actual !== 'number' || actual === expected) return;
      const message = `the balance is ${actual}, but ${job.initialBalance} minus the committed debits (${committedDebits}) is ${expected}: an update was lost`;
      if (!finding) finding = log.publish({ invariant: 'noLostUpdate', severity: 'violation', message, eventIds: [...new Set([...updates, e.id])] });
      else if (finding.message !== message) finding = log.revise(finding, { ...finding, message });
    },
    finish() {},
  };
}

/** reserve jobs: never reserve more than the stock (the committed stock never goes below 0). */
export function noOversell({ scenario, listener }: CheckerContext): InvariantChecker {
  const log = new FindingLog(listener);
  const reservations: string[] = [];
  let finding: Finding | null = null;
  const job = scenario.job;
  return {
    kind: 'noOversell',
    findings: log.findings,
    onEvent(e) {
      const call = sqlCallOf(e);
      if (e.kind !== 'sql' || job.kind !== 'reserve' || !call) return;
      const stmt = call.command;
      if (stmt.op === 'update' && stmt.table === 'items' && isOk(call.reply, 'UPDATE 1')) reservations.push(e.id);
      if (stmt.op !== 'commit' && stmt.op !== 'update') return;
      const stock = call.committed?.items?.find((r) => r.id === job.itemId)?.stock;
      if (typeof stock !== 'number' || stock >= 0) return;
      const sold = job.initialStock - stock;
      const message = `stock is ${stock}: ${sold / job.quantity} reservations were made for ${job.initialStock} item(s) in stock`;
      if (!finding) finding = log.publish({ invariant: 'noOversell', severity: 'violation', message, eventIds: [...new Set([...reservations, e.id])] });
      else if (finding.message !== message) finding = log.revise(finding, { ...finding, message });
    },
    finish() {},
  };
}
