/**
 * ../shared/cases/idempotency-in-flight.json (copied here: CI has no ../shared): a second request
 * with the same idempotency key while the first is still in flight. Expected: the second request
 * gets a conflict (409, retry later) while the first is in progress, not a replay of a result that
 * does not exist yet (../shared/semantics.md, "Idempotency keys while a request is in flight").
 */
import scenarioJson from './idempotency-in-flight.json';
import { parseScenario } from '../scenario/migrate';
import { runScenario } from '../engine/run';
import type { Scenario } from '../scenario/schema';

function load(): Scenario {
  const r = parseScenario(scenarioJson);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.scenario;
}

describe('idempotency-in-flight.json', () => {
  // Run inside each test, not while the file is collected: a run that throws then fails the test
  // (a mutation run counts a file that fails to collect as no failing test).
  const run = () => runScenario(load());
  const requests = (actor: string) => run().events.filter((e) => e.actor === actor && e.kind === 'destination');

  it('the first request is pending at 0 ms and answered at 3 s', () => {
    expect(requests('tab1').map((e) => [e.atMs, e.reply])).toEqual([[0, '(pending: no reply yet)'], [3_000, '201 Created']]);
    expect(requests('tab1')[1]!.narration).toBe("tab1's call returns: 201 Created.");
  });

  it('the second request gets 409 (retry later) while the first is in flight, never a replay before the first has finished', () => {
    const tab2 = requests('tab2');
    const early = tab2.filter((e) => e.atMs < 3_000);
    expect(early.length).toBeGreaterThan(0);
    for (const e of early) {
      expect(e.reply).toMatch(/^409 Conflict: a request with idempotency key tx-S00042 is still in progress \(write #1\); retry later$/);
      expect(e.narration).toMatch(/refuses this one \(409\) and performs nothing/);
      expect(e.narration).not.toMatch(/replay/);
    }
    expect(early[0]!.atMs).toBe(1_000);
  });

  it('retrying after the first request finished, it gets the saved result; the payment happens once', () => {
    const last = requests('tab2').at(-1)!;
    expect(last.atMs).toBeGreaterThanOrEqual(3_000);
    expect(last.reply).toBe('200 OK (replayed write #1: idempotency key seen, nothing performed)');
    const writes = runScenario(load(), { captureSnapshots: true }).snapshots!.at(-1)!.destination.writes;
    expect(writes.filter((w) => w.performed).map((w) => w.worker)).toEqual(['tab1']);
    expect(writes.filter((w) => w.status === 'conflict').every((w) => w.worker === 'tab2' && w.endMs !== null && w.endMs < 3_000)).toBe(true);
    const r = run();
    expect(r.metrics.duplicateEffects).toBe(0);
    expect(r.verdict.held).toBe(true);
  });

  it('tab2 retries every lease.retryEveryMs (1 s), each attempt worded in full: 409 at 1 s and 2 s, the replay at 3 s, and it completes', () => {
    const conflict = 'tab2 calls POST /payments: a request with the same idempotency key is still in progress, so the destination refuses this one (409) and performs nothing; tab2 will retry in 1 s.';
    expect(run().events.filter((e) => e.actor === 'tab2').map((e) => `${e.atMs} ${e.narration}`)).toEqual([
      `1000 ${conflict}`,
      `2000 ${conflict}`,
      '3000 tab2 calls POST /payments: the idempotency key was seen before and its request has finished, so the first result is replayed and nothing is performed again.',
      '3000 tab2 is done: it completed the job.',
    ]);
  });
});

