// @vitest-environment jsdom
/** The header's Display menu closes as a menu does: Escape, or a press outside it (newcomer review: it stayed over the verdict's checkbox). */
import { fireEvent, render } from '@testing-library/react';
import { useRef } from 'react';
import { useMenuDetails } from './useMenuDetails';

function Menu() {
  const ref = useRef<HTMLDetailsElement>(null);
  useMenuDetails(ref);
  return (
    <div>
      <details ref={ref} data-testid="menu"><summary>Display</summary><label><input type="checkbox" /> Large type</label></details>
      <p data-testid="outside">elsewhere</p>
    </div>
  );
}

describe('useMenuDetails', () => {
  it('closes on Escape and gives focus back to the summary', () => {
    const r = render(<Menu />);
    const menu = r.getByTestId('menu') as HTMLDetailsElement;
    menu.open = true;
    r.getByRole('checkbox').focus();
    fireEvent.keyDown(r.getByRole('checkbox'), { key: 'Escape' });
    expect(menu.open).toBe(false);
    expect(document.activeElement?.tagName).toBe('SUMMARY');
  });

  it('closes on a press outside it, not on one inside it', () => {
    const r = render(<Menu />);
    const menu = r.getByTestId('menu') as HTMLDetailsElement;
    menu.open = true;
    fireEvent.pointerDown(r.getByRole('checkbox'));
    expect(menu.open).toBe(true);
    fireEvent.pointerDown(r.getByTestId('outside'));
    expect(menu.open).toBe(false);
  });

  it('leaves a closed menu alone on Escape', () => {
    const r = render(<Menu />);
    const menu = r.getByTestId('menu') as HTMLDetailsElement;
    fireEvent.keyDown(document.body, { key: 'Escape' });
    expect(menu.open).toBe(false);
  });
});
