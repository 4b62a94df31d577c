/// <reference types="vite/client" />
/**
 * Entry point. A page load evaluates ~750 kB of script; in one piece that was one long task of
 * 170–280 ms on a busy 2-core machine. So the load goes in steps, each a task of its own: a line
 * saying the app is loading, then the simulation core (`src/sim`: its schemas, presets and worker
 * machine), then the app (React and the views) — `start.tsx`, which makes the link's first run and
 * mounts the app. `bench/ui.bench.ts` measures the longest task of the load.
 */
import './styles.css';
import { nextTask } from './nextTask';
import { applyPrefs, loadPrefs } from './prefs';

async function boot(): Promise<void> {
  const root = document.getElementById('root')!;
  // The reader's theme and type size before anything is painted (no light flash in the dark theme);
  // start.tsx applies them again with what the link says.
  applyPrefs(document, loadPrefs(), window.matchMedia?.('(prefers-color-scheme: dark)').matches ?? false);
  const loading = document.createElement('p');
  loading.className = 'boot';
  loading.textContent = 'Loading Lockscope…';
  root.replaceChildren(loading);
  // Both fetched at once (no waterfall); the core is evaluated first, the app in a later task.
  const core = import('../sim');
  const app = import('./start');
  await core;
  await nextTask();
  const { start } = await app;
  await start(root);
}

void boot();
