import type { InvariantChecker, Finding } from './types';

/** insertOnce jobs: at most one committed row per business key (e.g. one invoice per order). */
export function uniqueBusinessKey(): InvariantChecker {
  const findings: Finding[] = [];
  const inserts: string[] = [];
  let finding: Finding | null = null;
  return {
    kind: 'uniqueBusinessKey',
    findings,
    onEvent(e, world) {
      const job = world.scenario.job;
      if (e.kind !== 'sql' || job.kind !== 'insertOnce' || e.command === undefined) return;
      if (e.command.startsWith(`INSERT INTO ${job.table} `) && e.reply?.startsWith('INSERT 0 1')) inserts.push(e.id);
      if (!e.command.startsWith('COMMIT') && !e.command.startsWith('INSERT')) return;
      const keyCols = Object.entries(job.key);
      const count = world.db.committedRows(job.table).filter((r) => keyCols.every(([c, v]) => r[c] === v)).length;
      if (count < 2) return;
      const where = keyCols.map(([c, v]) => `${c} = ${typeof v === 'string' ? `'${v}'` : String(v)}`).join(' and ');
      const message = `${count} rows exist for ${where} in ${job.table}`;
      if (!finding) {
        finding = { invariant: 'uniqueBusinessKey', severity: 'violation', message, eventIds: [...inserts, e.id] };
        findings.push(finding);
      } else finding.message = message;
    },
    finish() {},
  };
}
