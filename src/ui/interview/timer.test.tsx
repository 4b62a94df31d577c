// @vitest-environment jsdom
import { act } from 'react';
import { screen } from '@testing-library/react';
import { createLockscopeStore } from '../store';
import { renderIn } from '../store/testing';
import { inlineRunner } from '../explore/coordinator';
import { CheckDesign } from './InterviewPanel';

it('the interview timer counts the seconds since the interview opened', async () => {
  let ms = 0;
  const env = { runners: () => [inlineRunner()], now: () => ms };
  const store = createLockscopeStore();
  store.getState().setInterview({ role: 'candidate', kinds: [], maxFaults: 1, notes: null });
  renderIn(store, <CheckDesign env={env} />);
  expect(screen.getByTestId('interview-timer')).toHaveTextContent('0:00');
  ms = 65_000;
  await act(async () => { await new Promise((r) => setTimeout(r, 1100)); });
  expect(screen.getByTestId('interview-timer')).toHaveTextContent('1:05');
});
