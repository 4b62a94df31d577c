import { sqlCallOf } from '../engine/trace';
import type { CheckerContext, InvariantChecker, Finding } from './types';
import { FindingLog } from './types';
import { isOk } from './data';

/** insertOnce jobs: at most one committed row per business key (e.g. one invoice per order). */
export function uniqueBusinessKey({ scenario, listener }: CheckerContext): InvariantChecker {
  const log = new FindingLog(listener);
  const inserts: string[] = [];
  let finding: Finding | null = null;
  const job = scenario.job;
  return {
    kind: 'uniqueBusinessKey',
    findings: log.findings,
    onEvent(e) {
      const call = sqlCallOf(e);
      if (e.kind !== 'sql' || job.kind !== 'insertOnce' || !call) return;
      const stmt = call.command;
      if (stmt.op === 'insert' && stmt.table === job.table && isOk(call.reply, 'INSERT 0 1')) inserts.push(e.id);
      if (stmt.op !== 'commit' && stmt.op !== 'insert') return;
      const keyCols = Object.entries(job.key);
      const count = (call.committed?.[job.table] ?? []).filter((r) => keyCols.every(([c, v]) => r[c] === v)).length;
      if (count < 2) return;
      const where = keyCols.map(([c, v]) => `${c} = ${typeof v === 'string' ? `'${v}'` : String(v)}`).join(' and ');
      const message = `${count} rows exist for ${where} in ${job.table}`;
      if (!finding) finding = log.publish({ invariant: 'uniqueBusinessKey', severity: 'violation', message, eventIds: [...new Set([...inserts, e.id])] });
      else if (finding.message !== message) finding = log.revise(finding, { ...finding, message });
    },
    finish() {},
  };
}
