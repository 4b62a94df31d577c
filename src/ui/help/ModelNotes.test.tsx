// @vitest-environment jsdom
import { render, screen } from '@testing-library/react';
import { ModelNotes } from './ModelNotes';
import { MODEL_SIMPLIFICATIONS } from '../../sim';

describe('ModelNotes', () => {
  it('lists every deliberate simplification of the model', () => {
    render(<ModelNotes />);
    expect(screen.getByRole('heading', { name: 'How faithful is the model?' })).toBeInTheDocument();
    for (const s of MODEL_SIMPLIFICATIONS) expect(screen.getByText(s.title)).toBeInTheDocument();
    expect(screen.getByText('No deadlock detector')).toBeInTheDocument();
  });
});
