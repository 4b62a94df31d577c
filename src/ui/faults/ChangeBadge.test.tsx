// @vitest-environment jsdom
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ChangeBadge, splitChanges } from './ChangeBadge';
import { createLockscopeStore } from '../store';
import { renderIn } from '../store/testing';

const LONG = "gone: B's and A's writes to exports/2026-11-30.csv overlapped from 45 s to 55 s, and both were accepted";

describe('change badge', () => {
  it('keeps the short changes on its line and the long ones behind "+N more"', () => {
    expect(splitChanges(['verdict: violated → held', '−1 duplicate upload', 'stale write rejected', LONG])).toEqual({
      shown: ['verdict: violated → held', '−1 duplicate upload'],
      rest: ['stale write rejected', LONG],
    });
  });

  it('shows one line, expands on demand, and gives screen readers every change', async () => {
    renderIn(createLockscopeStore(), <ChangeBadge badge={{ action: 'Switched Fencing token (checked by the destination): on', changes: ['verdict: violated → held', LONG], serial: 1 }} onDismiss={() => {}} />);
    const badge = screen.getByTestId('change-badge');
    expect(badge).toHaveTextContent('Fencing token (checked by the destination): on');
    expect(badge).not.toHaveTextContent(/^Switched/);
    expect(badge).toHaveTextContent(LONG); // in the live region, for screen readers
    expect(screen.queryByRole('listitem')).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: '+1 more' }));
    expect(screen.getByRole('listitem')).toHaveTextContent(LONG);
  });
});
