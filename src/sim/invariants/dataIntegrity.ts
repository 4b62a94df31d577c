import type { InvariantChecker, Finding } from './types';

/** debit jobs: the committed balance always equals the initial balance minus every committed debit (no lost update). */
export function noLostUpdate(): InvariantChecker {
  const findings: Finding[] = [];
  const pending = new Map<string, { amount: number; eventId: string }>();
  const updates: string[] = [];
  let committedDebits = 0;
  let finding: Finding | null = null;
  return {
    kind: 'noLostUpdate',
    findings,
    onEvent(e, world) {
      const job = world.scenario.job;
      if (e.kind !== 'sql' || job.kind !== 'debit' || !e.command) return;
      const amount = world.workers.get(e.actor)?.spec.amount ?? 10;
      if (e.command.startsWith('UPDATE accounts') && e.reply?.startsWith('UPDATE 1')) {
        updates.push(e.id);
        if (world.db.sessionState(world.beliefs(world.workers.get(e.actor)!).connection ?? e.actor).inTransaction) pending.set(e.actor, { amount, eventId: e.id });
        else committedDebits += amount;
      } else if (e.command === 'COMMIT' && e.reply === 'COMMIT') {
        committedDebits += pending.get(e.actor)?.amount ?? 0;
        pending.delete(e.actor);
      } else if (e.command === 'ROLLBACK' || (e.command === 'COMMIT' && e.reply === 'ROLLBACK')) {
        pending.delete(e.actor);
        return;
      } else return;
      const actual = world.db.committedRows('accounts').find((r) => r.id === job.accountId)?.balance;
      const expected = job.initialBalance - committedDebits;
      if (typeof actual !== 'number' || actual === expected) return;
      const message = `the balance is ${actual}, but ${job.initialBalance} minus the committed debits (${committedDebits}) is ${expected}: an update was lost`;
      if (!finding) findings.push((finding = { invariant: 'noLostUpdate', severity: 'violation', message, eventIds: [...updates, e.id] }));
      else finding.message = message;
    },
    finish() {},
  };
}

/** reserve jobs: never reserve more than the stock (the committed stock never goes below 0). */
export function noOversell(): InvariantChecker {
  const findings: Finding[] = [];
  const reservations: string[] = [];
  let finding: Finding | null = null;
  return {
    kind: 'noOversell',
    findings,
    onEvent(e, world) {
      const job = world.scenario.job;
      if (e.kind !== 'sql' || job.kind !== 'reserve' || !e.command) return;
      if (e.command.startsWith('UPDATE items') && e.reply?.startsWith('UPDATE 1')) reservations.push(e.id);
      if (!e.command.startsWith('COMMIT') && !e.command.startsWith('UPDATE')) return;
      const stock = world.db.committedRows('items').find((r) => r.id === job.itemId)?.stock;
      if (typeof stock !== 'number' || stock >= 0) return;
      const sold = job.initialStock - stock;
      const message = `stock is ${stock}: ${sold / job.quantity} reservations were made for ${job.initialStock} item(s) in stock`;
      if (!finding) findings.push((finding = { invariant: 'noOversell', severity: 'violation', message, eventIds: [...reservations, e.id] }));
      else finding.message = message;
    },
    finish() {},
  };
}
