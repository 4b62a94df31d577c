// @vitest-environment jsdom
import { render, screen } from '@testing-library/react';
import { ModelNotes } from './ModelNotes';
import { MODEL_SIMPLIFICATIONS } from '../../sim';

describe('ModelNotes', () => {
  it('lists every deliberate simplification of the model', () => {
    render(<ModelNotes />);
    expect(screen.getByRole('heading', { name: 'How faithful is the model?' })).toBeInTheDocument();
    for (const s of MODEL_SIMPLIFICATIONS) expect(screen.getByText(s.title)).toBeInTheDocument();
    expect(screen.queryByText('No deadlock detector')).toBeNull(); // simulations run PostgreSQL's deadlock check (issue 17)
    expect(screen.getByText(/statement that has waited deadlock_timeout/)).toBeInTheDocument();
  });
});
