/** Entry point: mounts the app. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { flushSync } from 'react-dom';
import { App } from './App';
import { useLockscope } from './store';
import './styles.css';

// `?bench` exposes the store to the UI benchmark (bench/ui.bench.ts); nothing else reads it.
if (new URLSearchParams(window.location.search).has('bench')) Object.assign(window, { __lockscope: useLockscope, __flushSync: flushSync });

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
