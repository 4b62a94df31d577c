// @vitest-environment jsdom
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { act } from 'react';
import { FaultList } from './FaultList';
import { FaultMenu } from './FaultMenu';
import { ChangeBadge } from './ChangeBadge';
import { VerdictPanel } from '../verdict/VerdictPanel';
import { createLockscopeStore, useLockscope, useRun, type LockscopeStore } from '../store';
import { renderIn } from '../store/testing';
import { deriveRun } from '../store/derive';

/** The fault editor, the fault menu, the badge and the verdict wired to the store. */
function Harness() {
  const run = useRun();
  const s = useLockscope((st) => st);
  return (
    <>
      <VerdictPanel run={run} onEventId={() => {}} />
      <ChangeBadge badge={s.badge} onDismiss={s.dismissBadge} />
      <FaultList faults={s.faults} scenario={s.scenario} run={run} selected={s.selectedFault} onUpdate={s.updateFault} onRemove={s.removeFault} onSelect={s.selectFault} />
      <FaultMenu />
    </>
  );
}

describe('Fault editor', () => {
  let store: LockscopeStore;
  beforeEach(() => {
    store = createLockscopeStore();
  });

  it('a time past the horizon is said next to the field and kept as typed; fixing it commits', async () => {
    renderIn(store, <Harness />);
    const at = screen.getByLabelText('Fault 1 time in seconds');
    await userEvent.clear(at);
    await userEvent.type(at, '500');
    await userEvent.tab();
    expect(at).toHaveValue(500);
    expect(at).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByText(/Must be at most 90 s, the scenario's horizon: the run stops there/)).toBeInTheDocument();
    expect(store.getState().faults[0]).toMatchObject({ atMs: 3000 });
    expect(store.getState().error).toBeNull();
    await userEvent.clear(at);
    await userEvent.type(at, '5{Enter}');
    expect(at).not.toHaveAttribute('aria-invalid');
    expect(store.getState().faults[0]).toMatchObject({ atMs: 5000 });
  });

  it('a fault moved past the run\'s last event, within the horizon, is kept and said to change nothing, with the reason', async () => {
    renderIn(store, <Harness />);
    // At 3 s the pause is what breaks the run: no such note.
    await act(async () => { await new Promise((r) => setTimeout(r, 100)); });
    expect(screen.queryByTestId('fault-0-inert')).toBeNull();
    const lastMs = deriveRun(store.getState().composed).events.at(-1)!.atMs;
    const at = screen.getByLabelText('Fault 1 time in seconds');
    await userEvent.clear(at);
    await userEvent.type(at, '85{Enter}');
    expect(store.getState().faults[0]).toMatchObject({ atMs: 85_000 });
    expect(85_000).toBeGreaterThan(lastMs);
    expect(at).toHaveValue(85);
    const note = await screen.findByTestId('fault-0-inert');
    expect(note).toHaveTextContent(/^No effect here: in this run it would only say: “Pause of A: it is not running, nothing happens\.”$/);
    // Back where it bites, the note goes.
    await userEvent.clear(at);
    await userEvent.type(at, '3{Enter}');
    await act(async () => { await new Promise((r) => setTimeout(r, 100)); });
    expect(screen.queryByTestId('fault-0-inert')).toBeNull();
  });

  it('a pause of 0 s is refused with a reason, not silently ignored', async () => {
    renderIn(store, <Harness />);
    const pause = screen.getByLabelText(/Fault 1 pause in seconds/);
    await userEvent.clear(pause);
    await userEvent.type(pause, '0');
    await userEvent.tab();
    expect(pause).toHaveValue(0);
    expect(screen.getByText('Must be more than 0 s. The run keeps 40 s until it is fixed.')).toBeInTheDocument();
    expect(store.getState().faults[0]).toMatchObject({ pauseMs: 40_000 });
  });

  it('removing the pause makes the verdict hold and the badge says so', async () => {
    renderIn(store, <Harness />);
    expect(screen.getByTestId('verdict')).toHaveTextContent('Violated');
    await userEvent.click(screen.getByRole('button', { name: /Remove fault: Pause A for 40 s at 3 s/ }));
    expect(screen.getByTestId('verdict')).toHaveTextContent('Held');
    expect(screen.getByTestId('change-badge')).toHaveTextContent('verdict: violated → held');
    expect(store.getState().faults).toEqual([]);
  });

  it('editing the pause length re-runs at once: a 10 s pause stays inside the lease', async () => {
    const user = userEvent.setup();
    renderIn(store, <Harness />);
    const input = screen.getByLabelText('Fault 1 pause in seconds');
    await user.clear(input);
    await user.type(input, '10{Enter}');
    expect(store.getState().faults[0]).toMatchObject({ kind: 'pause', pauseMs: 10_000 });
    expect(screen.getByTestId('verdict')).toHaveTextContent('Held');
    expect(screen.getByTestId('change-badge')).toHaveTextContent(/Changed: Pause A for 10 s.*verdict: violated → held/);
  });

  it('moving a fault in time keeps it plain data placed at atMs', async () => {
    const user = userEvent.setup();
    renderIn(store, <Harness />);
    const at = screen.getByLabelText('Fault 1 time in seconds');
    await user.clear(at);
    await user.type(at, '40{Enter}');
    expect(store.getState().faults[0]).toMatchObject({ kind: 'pause', worker: 'A', atMs: 40_000 });
  });

  it('the lane menu adds a fault that fits the lane', async () => {
    const user = userEvent.setup();
    renderIn(store, <Harness />);
    act(() => store.getState().openFaultMenu({ lane: { kind: 'lease', key: 'lease:export' }, atMs: 50_000, x: 10, y: 10 }));
    const menu = screen.getByRole('menu', { name: /lease:export at 50 s/ });
    expect(within(menu).queryByText(/Pause/)).toBeNull();
    await user.click(within(menu).getByRole('menuitem', { name: /Delete lease:export by hand/ }));
    expect(store.getState().faults.at(-1)).toEqual({ kind: 'manualDelete', atMs: 50_000 });
    expect(screen.queryByRole('menu')).toBeNull();
    expect(screen.getByTestId('change-badge')).toHaveTextContent('Added: Operator deletes lease:export at 50 s');
  });

  it('Escape closes the menu without adding anything', async () => {
    const user = userEvent.setup();
    renderIn(store, <Harness />);
    act(() => store.getState().openFaultMenu({ lane: { kind: 'worker', worker: 'B' }, atMs: 1_000, x: 10, y: 10 }));
    expect(screen.getByRole('menuitem', { name: /Pause B for 10 s/ })).toHaveFocus();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('menu')).toBeNull();
    expect(store.getState().faults).toHaveLength(1);
  });

  it('in a run within 2 s the fields speak milliseconds, as the fault\'s title and the axis do (not "at 0.05 s" under "at 50 ms")', async () => {
    const user = userEvent.setup();
    act(() => {
      store.getState().loadPreset('invoice-race', 'without');
      store.getState().addFault({ kind: 'pause', worker: 'A', atMs: 50, pauseMs: 500 });
    });
    renderIn(store, <Harness />);
    expect(within(screen.getByRole('region', { name: 'Faults' })).getByRole('listitem')).toHaveTextContent(/Pause A for 500 ms at 50 ms/);
    const at = screen.getByLabelText('Fault 1 time in milliseconds');
    const pause = screen.getByLabelText('Fault 1 pause in milliseconds');
    expect(at).toHaveValue(50);
    expect(pause).toHaveValue(500);
    // Typed in ms, committed in ms.
    await user.clear(pause);
    await user.type(pause, '300{Enter}');
    expect(store.getState().faults[0]).toMatchObject({ pauseMs: 300 });
    await user.clear(pause);
    await user.type(pause, '0');
    await user.tab();
    expect(screen.getByText('Must be more than 0 ms. The run keeps 300 ms until it is fixed.')).toBeInTheDocument();
    expect(store.getState().faults[0]).toMatchObject({ pauseMs: 300 });
  });
});
