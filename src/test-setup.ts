// Adds the jest-dom matchers (toBeInTheDocument, …) for component tests; harmless in node tests.
import '@testing-library/jest-dom/vitest';
import { beforeAll } from 'vitest';
import { preloadViews } from './ui/lazyView';

// The views the app loads as their own chunks (src/ui/lazyViews.ts) are loaded before a test file's
// tests, as the app's idle preload does: a component test renders them at once, as a user who
// opens one a second after the page sees them (no "Loading…" in between).
beforeAll(() => preloadViews());
