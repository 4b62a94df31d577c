// @vitest-environment jsdom
import { cleanup, fireEvent, screen } from '@testing-library/react';
import { act } from 'react';
import { createLockscopeStore } from '../store';
import { renderIn } from '../store/testing';
import { HelpButton, helpTopic } from './HelpDialog';
import type { View } from '../store/types';

afterEach(cleanup);

describe('Help describes the view it is opened from', () => {
  const views: readonly View[] = ['catalogue', 'simulate', 'compare', 'edit', 'lessons', 'lesson', 'workshop'];
  for (const view of views) {
    it(view, () => {
      const store = createLockscopeStore();
      act(() => store.getState().setView(view));
      renderIn(store, <HelpButton />);
      fireEvent.click(screen.getByRole('button', { name: 'Help' }));
      expect(screen.getByTestId('help-topic')).toHaveAttribute('data-topic', view);
      expect(screen.getByRole('heading', { level: 3, name: /^Using /, hidden: true })).toHaveTextContent(view === 'lesson' ? 'Using a guided lesson' : view === 'simulate' ? 'Using the simulator' : /^Using the /);
    });
  }

  it('the candidate of an interview gets the interview\'s steps, in every view', () => {
    for (const view of views) expect(helpTopic(view, 'interview')).toBe('interview');
    expect(helpTopic('lesson', 'lesson')).toBe('lesson');
    expect(helpTopic('compare', 'predict')).toBe('compare');
  });
});
