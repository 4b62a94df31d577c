/**
 * Every version-1 scenario still opens with the same trace hash: 260 version-1 scenarios (stored in fixtures/v1-corpus.json; every
 * preset of the last version-1 build, random faults of the nine version-1 kinds, random
 * version-1 mechanism and lease settings; v1Corpus.ts) were run on that build (recorded at d1e8b07, re-recorded on main just before the version-2 merge, after the deadlock timer and the verdict work changed 7 of them, and again when the one time formatter dropped trailing zeros ("10.270 s" → "10.27 s": 9 of them, nothing else in their traces changed), and when a check that finds two rows for its key said so instead of "the row" (7 admin-bypass runs: only that sentence changed), and when a worker that stops for a lost lease named the write it skips ("stops before its write" for "stops before writing anything": 15 runs, 16 sentences, every other field of every event the same))
 * and their hashes recorded in fixtures/v1-corpus-hashes.json. Here each goes through the
 * migration to version 2 and must give the recorded hash.
 */
import { readFileSync } from 'node:fs';
import { v1Scenario, V1_CORPUS_SIZE } from './v1Corpus';
import { parseScenario } from './migrate';
import { runScenario } from '../engine/run';
import { DEFAULT_CLIENT } from './schema';

const recorded = JSON.parse(readFileSync(new URL('./fixtures/v1-corpus-hashes.json', import.meta.url), 'utf8')) as string[];

describe('version-1 corpus after the migration to version 2', () => {
  it('has a recorded hash for every scenario, and the scenarios differ', () => {
    expect(recorded).toHaveLength(V1_CORPUS_SIZE);
    expect(new Set(recorded).size).toBeGreaterThan(V1_CORPUS_SIZE * 0.85);
  });

  it('each version-1 scenario migrates to version 2 with the default client and gives the trace hash version 1 gave', () => {
    const differ: number[] = [];
    for (let i = 0; i < V1_CORPUS_SIZE; i++) {
      const r = parseScenario(v1Scenario(i));
      expect(r.ok ? r.scenario.version : r.errors).toBe(2);
      if (!r.ok) continue;
      expect(r.scenario.client).toEqual(DEFAULT_CLIENT);
      if (runScenario(r.scenario).traceHash !== recorded[i]) differ.push(i);
    }
    expect(differ).toEqual([]);
  });
});
