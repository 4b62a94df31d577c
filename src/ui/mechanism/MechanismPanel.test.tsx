// @vitest-environment jsdom
import { screen, within } from '@testing-library/react';
import { act } from 'react';
import userEvent from '@testing-library/user-event';
import { MechanismPanel } from './MechanismPanel';
import { createLockscopeStore, type LockscopeStore } from '../store';
import { renderIn } from '../store/testing';

describe('MechanismPanel', () => {
  let store: LockscopeStore;
  beforeEach(() => {
    store = createLockscopeStore();
  });

  it('a lease TTL of 0 is said next to the field and kept as typed; the run keeps the last valid TTL', async () => {
    const user = userEvent.setup();
    renderIn(store, <MechanismPanel />);
    const ttl = screen.getByLabelText('Lease TTL in seconds');
    await user.clear(ttl);
    await user.type(ttl, '0');
    expect(ttl).toHaveValue(0);
    expect(ttl).toHaveAttribute('aria-invalid', 'true');
    expect(ttl).toHaveAccessibleDescription('Must be more than 0 s.');
    expect(store.getState().scenario.lease.ttlMs).toBe(30_000);
    await user.type(ttl, '5');
    expect(ttl).not.toHaveAttribute('aria-invalid');
    expect(store.getState().scenario.lease.ttlMs).toBe(5_000);
  });

  it('describes the selected option, not a fixed sentence', async () => {
    const user = userEvent.setup();
    renderIn(store, <MechanismPanel />);
    const release = screen.getByLabelText('Lease release');
    expect(release).toHaveAccessibleDescription('deletes only if the key is still ours');
    await user.selectOptions(release, 'del');
    expect(screen.getByLabelText('Lease release')).toHaveAccessibleDescription('DEL removes the key, whoever holds it');
    expect(screen.getByLabelText('Fencing token (checked by the destination)')).toHaveAccessibleDescription('destination accepts any write');
  });

  it('checks the variant the setup equals, and neither once it equals neither', async () => {
    const user = userEvent.setup();
    renderIn(store, <MechanismPanel />);
    expect(screen.getByRole('radio', { name: 'without the fix' })).toBeChecked();
    // Fencing on: the setup is now the preset "with the fix".
    await user.click(screen.getByLabelText('Fencing token (checked by the destination)'));
    expect(screen.getByRole('radio', { name: 'with the fix' })).toBeChecked();
    expect(screen.getByRole('radio', { name: 'without the fix' })).not.toBeChecked();
    await user.selectOptions(screen.getByLabelText('Lease release'), 'del');
    expect(screen.getByRole('radio', { name: 'with the fix' })).not.toBeChecked();
    expect(screen.getByRole('radio', { name: 'without the fix' })).not.toBeChecked();
    expect(screen.getByTestId('variant-edited')).toHaveTextContent('matches neither');
  });

  it('a switch that cannot change this run is disabled, with the reason as visible text', async () => {
    store.getState().loadPreset('remote-call-in-txn', 'with');
    renderIn(store, <MechanismPanel />);
    // Busy while the statuses are computed: the panel is about to fold the inert switches away.
    const panel = screen.getByRole('region', { name: 'Mechanism' });
    expect(panel).toHaveAttribute('aria-busy', 'true');
    await vi.waitFor(() => expect(panel).toHaveAttribute('aria-busy', 'false'));
    // Decided after the first frame (one run per value, in short slices); it then moves below the others.
    await vi.waitFor(() => expect(screen.getByLabelText('Check the durable job record first')).toBeDisabled());
    const jobRecord = screen.getByLabelText('Check the durable job record first');
    expect(jobRecord).toHaveAccessibleDescription(/^No effect here: the job already writes its record/);
    // Such switches wait under one line, so the panel stays short; opened, each says why.
    const more = screen.getByTestId('inert-switches');
    expect(more).toHaveTextContent(/^\d+ more switch(es)?: no effect in this run/);
    await userEvent.click(within(more).getByText(/no effect in this run/));
    expect(screen.getByText(/No effect here: the job already writes its record/)).toBeVisible();
  });

  it('in renew-partition, stop-on-renewal-failure can change the run and stays enabled', async () => {
    store.getState().loadPreset('renew-partition', 'without');
    renderIn(store, <MechanismPanel />);
    const stop = screen.getByLabelText('Stop when a renewal fails');
    expect(stop).toBeEnabled();
    expect(stop).toHaveAccessibleDescription('a failed renewal is ignored');
  });

  it('judges the run on screen, faults included: a job error makes "On error" matter', async () => {
    store.getState().loadPreset('admin-bypass', 'without');
    renderIn(store, <MechanismPanel />);
    await vi.waitFor(() => expect(screen.getByLabelText('On a job error')).toBeDisabled());
    act(() => store.getState().addFault({ kind: 'jobError', worker: 'A', atMs: 30 }));
    await vi.waitFor(() => expect(screen.getByLabelText('On a job error')).toBeEnabled());
    expect(screen.getByLabelText('On a job error')).toHaveAccessibleDescription('returned with its session locks');
  });
});
