/**
 * Vitest setup for the simulation's own tests when they run alone (vitest.mutate.config.ts, the
 * mutation runs): the fixed fast-check seed of src/test-setup.ts, without its component-test half
 * (the jest-dom matchers and the preload of every UI view chunk, which cost each of Stryker's
 * thousands of runs ~0.3 s and which no sim test uses).
 */
import fc from 'fast-check';

const fcSeed = process.env.FC_SEED;
if (fcSeed !== 'random') fc.configureGlobal({ seed: fcSeed === undefined ? 20261201 : Number(fcSeed) });
