import { readFileSync } from 'node:fs';
import { parseScenario, upgradeScenario, CURRENT_SCENARIO_VERSION } from './migrate';
import { runScenario } from '../engine/run';

/** A scenario file written by version 1 of the format, frozen: it must keep opening, with the same run. */
const frozenV1 = JSON.parse(readFileSync(new URL('./fixtures/scenario-v1.json', import.meta.url), 'utf8'));

describe('scenario migrations', () => {
  it('opens the frozen version-1 fixture and reproduces its run', () => {
    const r = parseScenario(frozenV1);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(runScenario(r.scenario).traceHash).toBe('1dd972d348fd76') // pinned; update only when the engine's output changes on purpose;
  });

  it('refuses a scenario from a newer Lockscope with a message', () => {
    const r = upgradeScenario({ ...frozenV1, version: CURRENT_SCENARIO_VERSION + 1 });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]).toEqual({ path: 'version', message: expect.stringContaining('made by a newer Lockscope') });
  });

  it.each([[null], [[]], ['text'], [{ version: 0 }], [{ version: 'one' }], [{}]])('refuses %j without throwing', (input) => {
    expect(parseScenario(input).ok).toBe(false);
  });
});
