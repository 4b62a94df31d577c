// @vitest-environment jsdom
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { App } from '../App';
import { NoticeBanner } from './NoticeBanner';
import { createLockscopeStore } from '../store';
import { renderIn } from '../store/testing';
import { encodeShare } from '../../share/link';

beforeAll(() => {
  // jsdom has no layout: the timeline only needs ResizeObserver to exist.
  globalThis.ResizeObserver ??= class { observe() {} unobserve() {} disconnect() {} } as unknown as typeof ResizeObserver;
});

describe('Refused-input message', () => {
  it('names what is wrong and where, renders markup as text, and can be dismissed', async () => {
    const onDismiss = vi.fn();
    render(<NoticeBanner notice={{ title: 'This link cannot be opened.', serial: 1, errors: [{ path: 'scenario.title', message: '<script>alert(1)</script> is odd' }, { path: 'link.x[0].pauseMs', message: 'must be ≥ 1' }] }} onDismiss={onDismiss} />);
    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent('This link cannot be opened.');
    expect(alert).toHaveTextContent('link.x[0].pauseMs must be at least 1 ms');
    expect(alert).toHaveTextContent('<script>alert(1)</script> is odd');
    expect(document.querySelector('script')).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Dismiss this message' }));
    expect(onDismiss).toHaveBeenCalled();
  });

  it('opening a hostile link keeps the app working with the previous scenario and says why', async () => {
    const store = createLockscopeStore();
    const before = store.getState().composed;
    window.history.replaceState(null, '', `#${encodeShare({ p: 'export-lease-expiry', x: [{ kind: 'pause', worker: 'A', atMs: 1, pauseMs: -5 }] })}`);
    renderIn(store, <App />);
    expect(await screen.findByRole('alert')).toHaveTextContent('link.x[0].pauseMs must be at least 1 ms');
    expect(store.getState().composed).toBe(before);
    expect(store.getState().view).toBe('simulate');
    expect(screen.getByTestId('verdict')).toHaveTextContent('Violated');
    await userEvent.click(screen.getByRole('button', { name: 'Dismiss this message' }));
    expect(screen.queryByRole('alert')).toBeNull();
    // Still usable: an edit goes through and lands in the address bar.
    await userEvent.click(screen.getByLabelText('Fencing token (checked by the destination)'));
    expect(screen.getByTestId('verdict')).toHaveTextContent('Held');
    expect(window.location.hash).toMatch(/^#v=1&s=/);
  });
});
