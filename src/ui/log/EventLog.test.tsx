// @vitest-environment jsdom
import { fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { vi } from 'vitest';
import { EventLog } from './EventLog';
import { Inspector } from '../inspector/Inspector';
import { createLockscopeStore, useLockscope, useLockscopeStore, useRun, deriveRun, type LockscopeStore } from '../store';
import { renderIn } from '../store/testing';

/** The log and the inspector wired to the store, as on the simulator screen. */
function Harness() {
  const run = useRun();
  const index = useLockscope((s) => s.cursorIndex);
  const cursorMs = useLockscope((s) => s.cursorMs);
  const store = useLockscopeStore();
  return (
    <>
      <EventLog run={run} index={index} onSelect={(i) => store.getState().setCursorIndex(i)} />
      <Inspector run={run} index={index} cursorMs={cursorMs} />
    </>
  );
}

describe('EventLog', () => {
  let store: LockscopeStore;
  beforeEach(() => {
    store = createLockscopeStore();
  });

  it("a reply's meaning opens above the reply when the window has no room for it below (it opened off-screen at the bottom of a 1280×800 window)", () => {
    renderIn(store, <Harness />);
    const term = document.querySelector<HTMLElement>('.log-row .term')!;
    expect(term).not.toBeNull();
    const at = (bottom: number) => vi.spyOn(term, 'getBoundingClientRect').mockReturnValue({ bottom, top: bottom - 20, left: 0, right: 100, width: 100, height: 20, x: 0, y: bottom - 20, toJSON: () => ({}) } as DOMRect);
    at(window.innerHeight - 17);
    fireEvent.mouseOver(term);
    expect(term).toHaveAttribute('data-tip', 'above');
    at(200);
    fireEvent.mouseOver(term);
    expect(term).not.toHaveAttribute('data-tip');
    // Keyboard focus of the row places it too.
    at(window.innerHeight - 5);
    fireEvent.focus(term.closest('.log-row')!.querySelector('button')!);
    expect(term).toHaveAttribute('data-tip', 'above');
  });

  it('shows the literal command, the reply and the narration of each event', () => {
    renderIn(store, <Harness />);
    const first = screen.getByRole('button', { name: /e1 .*SET lease:export e01d NX PX 30000.*OK.*A takes the lease/ });
    expect(first).toBeInTheDocument();
  });

  it('moves the cursor to a clicked event; the inspector shows that snapshot', async () => {
    const user = userEvent.setup();
    renderIn(store, <Harness />);
    const run = store.getState();
    expect(run.cursorIndex).toBe(-1);
    const bTakes = screen.getAllByRole('button').find((b) => b.textContent?.includes('B takes the lease'))!;
    await user.click(bTakes);
    const id = bTakes.getAttribute('data-event-id');
    expect(store.getState().cursorIndex).toBe(Number(id!.slice(1)) - 1);
    expect(bTakes).toHaveAttribute('aria-current', 'step');
    expect(within(screen.getByTestId('lease-lease:export')).getByText('B')).toBeInTheDocument();

    await user.click(screen.getAllByRole('button').find((b) => b.getAttribute('data-event-id') === 'e1')!);
    expect(within(screen.getByTestId('lease-lease:export')).getByText('A')).toBeInTheDocument();
    expect(bTakes).not.toHaveAttribute('aria-current');
  });

  it('folds the repeated SET NX retries into one row that expands', async () => {
    const user = userEvent.setup();
    renderIn(store, <Harness />);
    const fold = screen.getAllByRole('button').find((b) => b.classList.contains('fold'))!;
    expect(fold).toHaveTextContent(/SET lease:export a5e3 NX PX 30000.*\(nil\).*× \d+, 1 s apart/);
    const n = Number(/× (\d+)/.exec(fold.textContent!)![1]);
    const before = screen.getAllByRole('button').filter((b) => b.textContent?.includes('lease:export is taken')).length;
    expect(before).toBe(1);
    await user.click(screen.getByRole('button', { name: `Show all ${n}` }));
    expect(screen.getAllByRole('button').filter((b) => b.textContent?.includes('lease:export is taken')).length).toBe(n + 1);
    expect(screen.getByRole('button', { name: 'Fold the retries' })).toHaveAttribute('aria-expanded', 'true');
  });

  it('explains a reply: the glossary is the row\'s description and a tooltip of the reply', () => {
    renderIn(store, <Harness />);
    const first = screen.getAllByRole('button').find((b) => b.getAttribute('data-event-id') === 'e1')!;
    expect(first).toHaveAccessibleDescription(/Redis simple string OK/);
    expect(within(first).getByRole('tooltip', { hidden: true })).toHaveTextContent(/SET happened/);
  });

  it('steps with the arrow keys inside the log', async () => {
    const user = userEvent.setup();
    renderIn(store, <Harness />);
    await user.click(screen.getAllByRole('button').find((b) => b.getAttribute('data-event-id') === 'e1')!);
    await user.keyboard('{ArrowDown}{ArrowDown}');
    expect(store.getState().cursorIndex).toBe(2);
  });

  it('lists only the events up to the cursor while the verdict is hidden', () => {
    store.getState().setView('simulate');
    store.getState().setMode('predict');
    const run = store.getState();
    const r = renderIn(store, <EventLog run={deriveRun(run.composed)} index={2} onSelect={() => {}} cited={{ violation: new Set(['e1']), note: new Set() }} />);
    expect(r.container.querySelectorAll('li.log-row')).toHaveLength(3);
    expect(screen.getByText(/more events hidden/)).toBeInTheDocument();
    expect(screen.queryByLabelText('cited by a violation')).toBeNull();
  });
});
