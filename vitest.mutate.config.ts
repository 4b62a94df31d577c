/**
 * Vitest for `npm run mutate` (StrykerJS, see stryker.config.mjs): the simulation's own tests
 * only, in the node environment (the UI tests, in jsdom, would slow every mutant down).
 * LOCKSCOPE_MUTATION=1 shrinks the random samples of the property tests (determinism.test.ts);
 * the generous timeout keeps a busy shared machine from "killing" a mutant by slowness.
 */
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import base from './vite.config';

/**
 * Stryker stops at a mutant's first failing test, so the focused, fast test files go first and
 * the property tests and golden hashes (determinism.test.ts) last; Vitest's default order is
 * slowest first.
 */
class FocusedFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => (f.moduleId.includes('determinism') ? 2 : f.moduleId.includes('catalogue') ? 1 : 0);
    return [...files].sort((a, b) => rank(a) - rank(b) || a.moduleId.localeCompare(b.moduleId));
  }
}

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['src/sim/**/*.test.ts'],
    // Tests of the layers above resources/invariants/workers that run the whole simulation many
    // times over (the fault search, its odds, the controls' facts and status: 30 of the 39 s these
    // files take). They cover nearly every mutant, so each survivor paid for them all; without them a
    // mutant's run is seconds shorter (a full run still takes hours: README.md, "Mutation testing").
    // Leaving tests out can only lose kills: the
    // score measured this way is a lower bound of the whole suite's.
    exclude: [
      'src/sim/search/search.test.ts',
      'src/sim/search/odds.test.ts',
      'src/sim/controls/status.test.ts',
      'src/sim/controls/facts.test.ts',
    ],
    env: { LOCKSCOPE_MUTATION: '1' },
    // The sim tests' own setup (the fixed fast-check seed), not the app's (jest-dom, every UI chunk).
    setupFiles: ['./src/sim/testing/setup.ts'],
    testTimeout: 60_000,
    isolate: false,
    sequence: { sequencer: FocusedFirst },
  },
});
