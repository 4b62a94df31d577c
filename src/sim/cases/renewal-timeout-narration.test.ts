/**
 * ../shared/cases/renewal-timeout-narration.json (copied here: CI has no ../shared): renewals by
 * plain SET while the worker is cut off from the lease store. Expected: the narration of each
 * renewal follows its reply (a timeout is not "overwrites the key"), and failed renewals are
 * counted. Also the same kind in the renew-partition preset: its release at 28 s (e35) times out
 * and is not narrated as "sees B's token".
 */
import scenarioJson from './renewal-timeout-narration.json';
import { parseScenario } from '../scenario/migrate';
import { runScenario } from '../engine/run';
import { PRESETS } from '../presets';
import type { Scenario } from '../scenario/schema';

function load(): Scenario {
  const r = parseScenario(scenarioJson);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.scenario;
}

describe('renewal-timeout-narration.json', () => {
  // Run inside each test, not while the file is collected: a run that throws then fails the test
  // (a mutation run counts a file that fails to collect as no failing test).
  const run = () => runScenario(load());
  const renewalsOf = () => run().events.filter((e) => e.actor === 'beatA' && e.command === 'SET redbeat::lock e01d');

  it('each timed-out renewal is narrated as a timeout, never as overwriting the key', () => {
    const timedOut = renewalsOf().filter((e) => e.reply === '(no reply: connection timed out)');
    expect(timedOut.map((e) => e.atMs)).toEqual([5_000, 10_000, 15_000]);
    for (const e of timedOut) {
      expect(e.narration).not.toMatch(/overwrites/);
      expect(e.narration).toMatch(/gets no reply \(timed out\): it cannot know whether it still owns the lease/);
      expect(e.data).toEqual({ t: 'lease', op: 'renewFailed', key: 'redbeat::lock', worker: 'beatA' });
    }
  });

  it('a renewal that got OK is narrated as the overwrite it is', () => {
    const answered = renewalsOf().filter((e) => e.reply === 'OK');
    expect(answered.length).toBeGreaterThan(0);
    for (const e of answered) expect(e.narration).toMatch(/overwrites whoever holds the key/);
  });

  it('the timed-out renewals are counted as renew failures', () => {
    const r = run();
    expect(r.metrics.renewFailures).toBe(3);
    expect(r.events.filter((e) => e.data?.t === 'lease' && e.data.op === 'renewFailed')).toHaveLength(3);
  });

  it('renew-partition e35: the timed-out compare-and-delete is narrated as a timeout, not as "sees B\'s token"', () => {
    const r = runScenario(PRESETS.find((p) => p.id === 'renew-partition')!.withoutFix);
    const e35 = r.events.find((e) => e.id === 'e35')!;
    expect([e35.atMs, e35.actor, e35.reply]).toEqual([28_000, 'A', '(no reply: connection timed out)']);
    expect(e35.narration).not.toMatch(/sees|token, not its own|lease is safe/);
    expect(e35.narration).toBe("A's compare-and-delete gets no reply (timed out): it gives up its lease without knowing whether the key was deleted; if its token is still there, the key stays until its TTL runs out.");
  });
});
