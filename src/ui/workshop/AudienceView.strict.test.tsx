// @vitest-environment jsdom
/**
 * The audience window under React StrictMode (the dev server, `npm run dev`): StrictMode runs
 * each effect, cleans it up and runs it again. The window must still follow the presenter — a
 * channel opened once and closed by the first cleanup left it blank ("Channel is closed").
 */
import { StrictMode, act } from 'react';
import { render, cleanup, screen } from '@testing-library/react';
import { createLockscopeStore, LockscopeProvider } from '../store';
import { installPresenterSync } from './sync';
import { channelName } from './channel';
import { AudienceView } from './WorkshopView';
import { neutralTitle } from '../../share/candidatePrompt';

globalThis.ResizeObserver ??= class { observe() {} unobserve() {} disconnect() {} } as unknown as typeof ResizeObserver;

afterEach(() => cleanup());

it('under StrictMode the audience window receives the presenter\'s scenario and cursor', async () => {
  const presenter = createLockscopeStore();
  presenter.getState().loadPreset('watchdog-starved', 'without');
  presenter.getState().setWorkshop({ role: 'presenter', ch: 'strictch1' });
  presenter.getState().setView('workshop');
  const presenterChannel = new BroadcastChannel(channelName('strictch1'));
  const offP = installPresenterSync(presenter, presenterChannel, 'strictch1', () => undefined);
  const audience = createLockscopeStore();
  audience.getState().setWorkshop({ role: 'audience', ch: 'strictch1' });
  const errors: unknown[] = [];
  const onError = (e: ErrorEvent) => errors.push(e.error);
  window.addEventListener('error', onError);
  render(<StrictMode><LockscopeProvider store={audience}><AudienceView /></LockscopeProvider></StrictMode>);
  for (let i = 0; i < 40 && audience.getState().presetId !== 'watchdog-starved'; i++) {
    await act(async () => { await new Promise((r) => setTimeout(r, 25)); });
  }
  expect(audience.getState().presetId).toBe('watchdog-starved');
  // Before the reveal the audience reads a title from the scenario's data, not the catalogue's (it tells the outcome).
  expect(audience.getState().mode).toBe('predict');
  expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(neutralTitle(presenter.getState().scenario));
  expect(screen.getByRole('heading', { level: 1 }).textContent).not.toBe(presenter.getState().scenario.title);
  expect(screen.queryByText(/no BroadcastChannel/)).toBeNull();
  expect(errors).toEqual([]);
  window.removeEventListener('error', onError);
  offP();
  presenterChannel.close();
});
