/**
 * ../shared/cases/row-lock-after-commit.json (copied here: CI has no ../shared): two transfers
 * lock the account row with SELECT … FOR UPDATE, debit and commit, then do unrelated work. The
 * description: "no lost update and no mutual-exclusion finding (the row lock ended at COMMIT)".
 */
import caseFile from './row-lock-after-commit.json';
import { parseScenario } from '../scenario/migrate';
import { runScenario } from '../engine/run';
import type { Scenario } from '../scenario/schema';

function load(): Scenario {
  const parsed = parseScenario(caseFile);
  if (!parsed.ok) throw new Error(`row-lock-after-commit.json is not a valid scenario: ${JSON.stringify(parsed.errors)}`);
  return parsed.scenario;
}

describe('row-lock-after-commit.json', () => {
  // Run inside each test, not while the file is collected: a run that throws then fails the test
  // (a mutation run counts a file that fails to collect as no failing test).
  const run = () => runScenario(load(), { captureSnapshots: true });
  const ev = (r: ReturnType<typeof run>, actor: string, command: string) => {
    const e = r.events.find((x) => x.actor === actor && x.command === command);
    if (!e) throw new Error(`no ${command} by ${actor}`);
    return e;
  };

  it('holds: no lost update and no mutual-exclusion finding', () => {
    const r = run();
    expect(r.verdict.status).toBe('held');
    expect(r.verdict.violations).toEqual([]);
    expect(r.verdict.notes).toEqual([]);
  });

  it('the debits are serialised: B reads the row only after A commits, and the balance is 100 − 30 − 50', () => {
    const r = run();
    const aCommit = ev(r, 'A', 'COMMIT');
    const bRead = ev(r, 'B', 'SELECT balance FROM accounts WHERE id = 1 FOR UPDATE');
    expect(bRead.reply).toBe('SELECT 1 → balance=70');
    expect(Number(bRead.id.slice(1))).toBeGreaterThan(Number(aCommit.id.slice(1)));
    expect(r.snapshots!.at(-1)!.tables.accounts).toEqual([{ id: 1, balance: 20 }]);
  });

  it('the FOR UPDATE belief ends at COMMIT: neither worker believes it holds a lock while it works afterwards', () => {
    const r = run();
    for (const actor of ['A', 'B']) {
      expect(ev(r, actor, 'COMMIT').beliefs).toMatchObject({ inTransaction: false, holdsLock: false });
      const work = r.events.find((e) => e.actor === actor && e.kind === 'step' && e.data?.t === 'step' && e.data.name === 'work')!;
      expect(work.beliefs!.holdsLock).toBe(false);
      expect(work.narration).not.toContain('inside its critical section');
    }
  });
});
