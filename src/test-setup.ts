// Adds the jest-dom matchers (toBeInTheDocument, …) for component tests; harmless in node tests.
import '@testing-library/jest-dom/vitest';
import { beforeAll } from 'vitest';
import fc from 'fast-check';
import { preloadViews } from './ui/lazyView';

// The views the app loads as their own chunks (src/ui/lazyViews.ts) are loaded before a test file's
// tests, as the app's idle preload does: a component test renders them at once, as a user who
// opens one a second after the page sees them (no "Loading…" in between).
beforeAll(() => preloadViews());

// Property tests run on a fixed seed, so CI is the same run every time: a counterexample found by
// exploring is pinned as a named test, never met by chance in a CI run. Explore with another seed
// by `FC_SEED=<n> npm test` (or `FC_SEED=random`); fast-check prints the seed of a failure.
const fcSeed = process.env.FC_SEED;
if (fcSeed !== 'random') fc.configureGlobal({ seed: fcSeed === undefined ? 20261201 : Number(fcSeed) });
