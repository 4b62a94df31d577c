// @vitest-environment jsdom
import { screen, fireEvent, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { act } from 'react';
import { EditorView, JSON_DEBOUNCE_MS, forgetOpenDraft } from './EditorView';
import { createLockscopeStore, type LockscopeStore } from '../store';
import { renderIn } from '../store/testing';

const json = () => screen.getByLabelText('Scenario JSON') as HTMLTextAreaElement;

let view: LockscopeStore;
const store = () => view.getState();

describe('Scenario editor', () => {
  beforeEach(() => {
    localStorage.clear();
    forgetOpenDraft();
    view = createLockscopeStore();
    store().setView('edit');
  });
  afterEach(() => vi.useRealTimers());

  it("speaks the simulator's words: option labels, not internal values; steps counted from 1", () => {
    store().loadPreset('crash-after-effect', 'without');
    renderIn(view, <EditorView />);
    const lock = screen.getByLabelText('Row lock on read') as HTMLSelectElement;
    expect([...lock.options].map((o) => o.textContent)).toContain('FOR UPDATE NOWAIT');
    expect([...lock.options].map((o) => o.textContent)).not.toContain('forUpdateNowait');
    const onError = screen.getByLabelText('On a job error') as HTMLSelectElement;
    expect([...onError.options].map((o) => o.textContent)).toContain('unlock in finally');
    // The preset's crash is placed after the worker's effect step: index 1 in the file, "step 2" on screen, as the fault list says.
    const f = store().faults.find((x) => x.step !== undefined)!;
    const i = store().faults.indexOf(f);
    const step = screen.getAllByLabelText('Or before/after step')[i] as HTMLInputElement;
    expect(Number(step.value)).toBe(f.step! + 1);
    fireEvent.change(step, { target: { value: '1' } });
    expect(store().composed.faults[i]!.step).toBe(0);
  });

  it('issue 9: a lease TTL of 0 ms is refused next to the field in the user\'s words, with Redis\'s own reason, and the 0 typed stays', () => {
    store().loadPreset('export-lease-expiry', 'without');
    renderIn(view, <EditorView />);
    const ttl = screen.getByLabelText('TTL (ms)') as HTMLInputElement;
    fireEvent.change(ttl, { target: { value: '0' } });
    expect(ttl.value).toBe('0');
    const err = screen.getAllByTestId('field-error')[0]!;
    expect(err).toHaveTextContent('Lease TTL: must be at least 1 ms.');
    expect(err).toHaveTextContent("Why: Redis refuses SET … PX 0 (or a negative TTL): \"ERR invalid expire time in 'set' command\".");
    expect(err.textContent).not.toContain('lease.ttlMs');
    expect(ttl).toHaveAccessibleDescription(err.textContent!);
  });

  it('two bad fields, one a rule across fields (a fault after the run) and one the schema refuses (TTL 0): both stay marked, both are counted (a newcomer saw "1 problem")', () => {
    store().loadPreset('export-lease-expiry', 'without');
    renderIn(view, <EditorView />);
    const at = screen.getAllByLabelText('At (ms)')[0] as HTMLInputElement;
    fireEvent.change(at, { target: { value: '500000' } });
    expect(screen.getByTestId('editor-status')).toHaveTextContent('1 problem');
    fireEvent.change(screen.getByLabelText('TTL (ms)'), { target: { value: '0' } });
    expect(screen.getByTestId('editor-status')).toHaveTextContent('2 problems');
    expect(at).toHaveAttribute('aria-invalid', 'true');
    expect(at.value).toBe('500000');
    expect(screen.getByLabelText('TTL (ms)')).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByTestId('json-problems')).toHaveTextContent('lease.ttlMs: must be ≥ 1');
    expect(screen.getByTestId('json-problems')).toHaveTextContent('faults[0].atMs: must be ≤ horizonMs (90000)');
  });

  it('a draft with problems survives a reload (the link holds only the last valid scenario); a fix or a revert forgets it', () => {
    localStorage.clear();
    store().loadPreset('export-lease-expiry', 'without');
    const first = renderIn(view, <EditorView />);
    fireEvent.change(screen.getAllByLabelText('At (ms)')[0]!, { target: { value: '500000' } });
    fireEvent.change(screen.getByLabelText('TTL (ms)'), { target: { value: '0' } });
    first.unmount();
    // A reload: nothing in memory, the running scenario from the link.
    const reload = (presetId: string): LockscopeStore => {
      forgetOpenDraft();
      const next = createLockscopeStore();
      next.getState().loadPreset(presetId, 'without');
      next.getState().setView('edit');
      return next;
    };
    const reloaded = reload('export-lease-expiry');
    const second = renderIn(reloaded, <EditorView />);
    expect((screen.getByLabelText('TTL (ms)') as HTMLInputElement).value).toBe('0');
    expect((screen.getAllByLabelText('At (ms)')[0] as HTMLInputElement).value).toBe('500000');
    expect(screen.getByTestId('editor-status')).toHaveTextContent('2 problems');
    // Another running scenario does not take it.
    second.unmount();
    const third = renderIn(reload('invoice-race'), <EditorView />);
    expect(screen.getByTestId('editor-status')).toHaveTextContent('Valid');
    third.unmount();
    // …nor forgets it; reverting does.
    forgetOpenDraft();
    renderIn(reloaded, <EditorView />);
    fireEvent.click(screen.getByRole('button', { name: 'Revert to the running scenario' }));
    expect(localStorage.getItem('lockscope:editor-unsaved:v1')).toBeNull();
  });

  it('a valid form edit replaces the running scenario and shows in the JSON view', async () => {
    renderIn(view, <EditorView />);
    const seed = screen.getByLabelText('Seed');
    fireEvent.change(seed, { target: { value: '77' } });
    expect(store().composed.seed).toBe(77);
    expect(JSON.parse(json().value).seed).toBe(77);
    expect(screen.getByTestId('editor-status')).toHaveTextContent('Valid');
  });

  it('an invalid form edit shows the message at the field with its path and keeps the last valid scenario', () => {
    renderIn(view, <EditorView />);
    const before = store().composed;
    fireEvent.change(screen.getByLabelText('Horizon (ms)'), { target: { value: '-5' } });
    expect(store().composed).toBe(before);
    expect(screen.getByTestId('editor-status')).toHaveTextContent('1 problem — the last valid scenario keeps running');
    expect(screen.getByLabelText('Horizon (ms)')).toHaveAttribute('aria-invalid', 'true');
    // In the user's words: the field's name and the rule with its unit (the JSON view keeps the path).
    expect(screen.getAllByTestId('field-error')[0]).toHaveTextContent('Horizon: must be at least 1 ms.');
    expect(screen.getByTestId('json-problems')).toHaveTextContent('horizonMs: must be ≥ 1');
    // The JSON view shows the draft (with the bad value), in sync with the form.
    expect(JSON.parse(json().value).horizonMs).toBe(-5);
    // Fixing it runs it.
    fireEvent.change(screen.getByLabelText('Horizon (ms)'), { target: { value: '80000' } });
    expect(store().composed.horizonMs).toBe(80_000);
    expect(screen.queryAllByTestId('field-error')).toHaveLength(0);
  });

  it('JSON typing is debounced; text that is not JSON never replaces the running scenario', () => {
    vi.useFakeTimers();
    renderIn(view, <EditorView />);
    const before = store().composed;
    fireEvent.change(json(), { target: { value: '{ "version": 1, ' } });
    expect(screen.getByTestId('json-problems')).not.toHaveTextContent('Not valid JSON');
    act(() => vi.advanceTimersByTime(JSON_DEBOUNCE_MS + 10));
    expect(screen.getByTestId('json-problems')).toHaveTextContent('Not valid JSON');
    expect(store().composed).toBe(before);

    const edited = { ...before, title: 'Edited in JSON', faults: [] };
    fireEvent.change(json(), { target: { value: JSON.stringify(edited, null, 2) } });
    act(() => vi.advanceTimersByTime(JSON_DEBOUNCE_MS + 10));
    expect(store().composed.title).toBe('Edited in JSON');
    expect(store().faults).toEqual([]);
    expect(screen.getByLabelText('Title')).toHaveValue('Edited in JSON');
  });

  it('JSON of the wrong shape lists errors with field paths (newer version, __proto__, huge numbers)', () => {
    vi.useFakeTimers();
    renderIn(view, <EditorView />);
    const before = store().composed;
    const bad = { ...before, version: 3 };
    fireEvent.change(json(), { target: { value: JSON.stringify(bad) } });
    act(() => vi.advanceTimersByTime(JSON_DEBOUNCE_MS + 10));
    expect(screen.getByTestId('json-problems')).toHaveTextContent('version: is 3');
    fireEvent.change(json(), { target: { value: JSON.stringify(before).replace('{', '{"__proto__":{"x":1},') } });
    act(() => vi.advanceTimersByTime(JSON_DEBOUNCE_MS + 10));
    expect(screen.getByTestId('json-problems')).toHaveTextContent('unknown field "__proto__"');
    fireEvent.change(json(), { target: { value: JSON.stringify({ ...before, horizonMs: 1e300, workers: Array.from({ length: 1000 }, () => before.workers[0]) }) } });
    act(() => vi.advanceTimersByTime(JSON_DEBOUNCE_MS + 10));
    expect(screen.getByTestId('json-problems')).toHaveTextContent('horizonMs: must be ≤ 3600000');
    expect(screen.getByTestId('json-problems')).toHaveTextContent('workers: must have at most 16 item(s)');
    expect(screen.getByText(/workers has 1000 items, over the limit of 16/)).toBeInTheDocument();
    expect(store().composed).toBe(before);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('a hand-edited draft that repeats a worker id: the refusal names it, and a fault\'s worker list offers the id once', () => {
    vi.useFakeTimers();
    store().loadPreset('unsafe-release', 'without');
    renderIn(view, <EditorView />);
    const before = store().composed;
    const twice = { ...before, workers: [before.workers[0], { ...before.workers[1], id: before.workers[0]!.id }] };
    fireEvent.change(json(), { target: { value: JSON.stringify(twice) } });
    act(() => vi.advanceTimersByTime(JSON_DEBOUNCE_MS + 10));
    expect(screen.getByTestId('json-problems')).toHaveTextContent(/workers\[1\]\.id/);
    const worker = screen.getAllByLabelText('Worker')[0] as HTMLSelectElement;
    expect([...worker.options].map((o) => o.value).filter((v) => v === 'A')).toEqual(['A']);
    expect(store().composed).toBe(before);
  });

  it('removing the step a fault is placed at keeps the run valid, re-places the fault and says so', async () => {
    const user = userEvent.setup();
    store().loadPreset('unsafe-release', 'without');
    store().setView('edit');
    renderIn(view, <EditorView />);
    await user.click(screen.getByRole('button', { name: 'Remove worker A step 3' }));
    expect(store().composed.workers[0]!.steps.map((s) => s.do)).toEqual(['acquire', 'work']);
    expect(store().composed.faults[0]).toMatchObject({ kind: 'pause', worker: 'A' });
    expect(store().composed.faults[0]!.step).toBeUndefined();
    expect(store().notice?.errors[0]?.message).toMatch(/before step 3 \(release\)\): that step was removed/);
    expect(screen.getByTestId('editor-status')).toHaveTextContent('Valid');
  });

  it('adds, reorders and removes steps and workers', async () => {
    const user = userEvent.setup();
    renderIn(view, <EditorView />);
    const workerA = screen.getByRole('group', { name: 'Worker A' });
    await user.click(within(workerA).getByRole('button', { name: 'Add step' }));
    expect(store().composed.workers[0]!.steps.at(-1)).toEqual({ do: 'work', ms: 1000 });
    const n = store().composed.workers[0]!.steps.length;
    await user.click(screen.getByRole('button', { name: `Move worker A step ${n} up` }));
    expect(store().composed.workers[0]!.steps[n - 2]).toEqual({ do: 'work', ms: 1000 });
    await user.click(screen.getByRole('button', { name: `Remove worker A step ${n - 1}` }));
    expect(store().composed.workers[0]!.steps).toHaveLength(n - 1);

    await user.click(screen.getByRole('button', { name: 'Add worker' }));
    expect(store().composed.workers.map((w) => w.id)).toEqual(['A', 'B', 'C']);
    await user.click(screen.getByRole('button', { name: 'Move C up' }));
    expect(store().composed.workers.map((w) => w.id)).toEqual(['A', 'C', 'B']);
    await user.click(screen.getByRole('button', { name: 'Remove worker C' }));
    expect(store().composed.workers.map((w) => w.id)).toEqual(['A', 'B']);
  });

  it('exposes the lock client in a user\'s words; retries appear with retry; a margin too large is refused at client.renewMarginMs', () => {
    store().loadPreset('watchdog-starved', 'without');
    renderIn(view, <EditorView />);
    const onBusy = screen.getByLabelText('When someone else holds the lock') as HTMLSelectElement;
    expect([...onBusy.options].map((o) => o.textContent)).toEqual([
      'wait for it (pg_advisory_lock; SET NX again and again)', 'try once and skip the job (pg_try_advisory_lock; one SET NX)', 'retry a few times, then fail the job',
    ]);
    expect(screen.queryByLabelText(/Retries after the first try/)).toBeNull();
    fireEvent.change(onBusy, { target: { value: 'retry' } });
    expect(store().composed.client.onBusy).toBe('retry');
    fireEvent.change(screen.getByLabelText(/Retries after the first try/), { target: { value: '3' } });
    expect(store().composed.client.retries).toBe(3);
    expect(screen.getByLabelText(/Fail the job when the unlock says the lock was not ours/)).toBeChecked();
    expect([...(screen.getByLabelText('Lease renewal') as HTMLSelectElement).options].map((o) => o.textContent)).toContain('plain PEXPIRE');
    expect(screen.getByText(/stall a worker's renewal timer/, { selector: 'legend' })).toBeTruthy();
    expect(screen.getByLabelText('Renewal timer stalled for (ms)')).toHaveValue(30000);
    fireEvent.change(screen.getByLabelText(/Renew this much early/), { target: { value: '3000' } });
    expect(screen.getByTestId('editor-errors')).toHaveTextContent('Renew this much early: must be less than Renew every (3000 ms)');
    expect(store().composed.client.renewMarginMs).toBe(0);
  });

  it('exposes the queue in a user\'s words; a visibility timeout that is not whole seconds is refused at queue.visibilityTimeoutMs; "no queue" removes it', () => {
    store().loadPreset('queue-redelivery', 'without');
    renderIn(view, <EditorView />);
    const kind = screen.getByLabelText('The workers take their job from') as HTMLSelectElement;
    expect(kind.value).toBe('sqs');
    expect(screen.getByLabelText(/Visibility timeout \(ms\)/)).toHaveValue(30000);
    expect(screen.getByLabelText(/Stalled-job checker runs every/)).toHaveValue(null);
    expect([...(screen.getByLabelText('Worker A step 4') as HTMLSelectElement).options].map((o) => o.textContent)).toContain('ack (DeleteMessage / mark done)');
    expect(screen.getByLabelText(/Every delivered job completes within/)).toHaveValue(60000);
    fireEvent.change(screen.getByLabelText(/Visibility timeout \(ms\)/), { target: { value: '30500' } });
    expect(screen.getByTestId('editor-errors')).toHaveTextContent('Visibility timeout: must be whole seconds');
    expect((store().composed.queue as { visibilityTimeoutMs: number }).visibilityTimeoutMs).toBe(30000);
    fireEvent.change(screen.getByLabelText(/Visibility timeout \(ms\)/), { target: { value: '40000' } });
    expect((store().composed.queue as { visibilityTimeoutMs: number }).visibilityTimeoutMs).toBe(40000);
    fireEvent.change(kind, { target: { value: 'none' } });
    expect(screen.getByTestId('editor-errors')).toHaveTextContent('Step (worker 1, step 1): "receive" takes its job from a queue: add a "queue" block');
  });

  it('a step duration edit re-runs; the mechanism, lease and invariants are editable', async () => {
    const user = userEvent.setup();
    renderIn(view, <EditorView />);
    fireEvent.change(screen.getByLabelText('Worker A step 2 duration (ms)'), { target: { value: '2500' } });
    expect(store().composed.workers[0]!.steps[1]).toEqual({ do: 'work', ms: 2500 });
    await user.click(screen.getByLabelText('Fencing token with the lease'));
    expect(store().composed.mechanism.fencing).toBe(true);
    // Where the token comes from: absent reads as Redis INCR; the user's words pick the database sequence.
    const source = screen.getByLabelText(/Fencing token from/);
    expect(source).toHaveValue('redis-incr');
    expect(screen.getByRole('option', { name: "Redis INCR (in the lock's Redis)" })).toBeInTheDocument();
    await user.selectOptions(source, 'database sequence (nextval(\'fence_seq\'))');
    expect(store().composed.mechanism.fenceSource).toBe('db-sequence');
    fireEvent.change(screen.getByLabelText('TTL (ms)'), { target: { value: '60000' } });
    expect(store().composed.lease.ttlMs).toBe(60_000);
    await user.click(screen.getByLabelText('one live lease owner at a time'));
    expect(store().composed.invariants.map((i) => i.kind)).toContain('singleLeaseOwner');
  });

  it('the fenced row job: its fields in a user\'s words, and the fence check on the UPDATE', async () => {
    const user = userEvent.setup();
    store().loadPreset('fenced-db-write', 'without');
    renderIn(view, <EditorView />);
    expect(screen.getAllByLabelText('Kind')[0]).toHaveValue('fencedRow');
    expect(screen.getByRole('option', { name: 'update one row the lock protects (the database is fenced)' })).toBeInTheDocument();
    expect(screen.getByLabelText('Table')).toHaveValue('documents');
    fireEvent.change(screen.getByLabelText('Row id'), { target: { value: '8' } });
    expect(store().composed.job).toMatchObject({ kind: 'fencedRow', rowId: 8 });
    await user.click(screen.getByLabelText('The UPDATE checks the fence (AND fence < $token)'));
    expect(store().composed.destination.checksFencing).toBe(true);
  });

  it('a fault added elsewhere (timeline) resets the form to the running scenario', () => {
    renderIn(view, <EditorView />);
    act(() => store().addFault({ kind: 'manualDelete', atMs: 50_000 }));
    expect(JSON.parse(json().value).faults).toHaveLength(2);
    expect(screen.getByRole('group', { name: 'Fault 2: operator DELs the lease key' })).toBeInTheDocument();
  });

  it('markup in the title is shown as text, never as HTML', () => {
    renderIn(view, <EditorView />);
    fireEvent.change(screen.getByLabelText('Title'), { target: { value: '<img src=x onerror=alert(1)>' } });
    expect(store().composed.title).toBe('<img src=x onerror=alert(1)>');
    expect(document.querySelector('img')).toBeNull();
  });

  it('exposes the server timeouts, the isolation level and the retry on 40001 in a user\'s words; a bad value is refused at its path', () => {
    store().loadPreset('serializable-retry', 'without');
    renderIn(view, <EditorView />);
    expect((screen.getByLabelText('Isolation level') as HTMLSelectElement).value).toBe('serializable');
    expect((screen.getByLabelText('Retry the transaction on serialization failure') as HTMLInputElement).value).toBe('3');
    fireEvent.change(screen.getByLabelText('Isolation level'), { target: { value: 'repeatable read' } });
    expect(store().composed.database.isolation).toBe('repeatable read');
    fireEvent.change(screen.getByLabelText('Isolation level'), { target: { value: '' } });
    expect(store().composed.database.isolation).toBeUndefined();
    fireEvent.change(screen.getByLabelText('Statement timeout (ms)'), { target: { value: '2000' } });
    expect(store().composed.database.statementTimeoutMs).toBe(2000);
    fireEvent.change(screen.getByLabelText('Idle-in-transaction timeout (ms)'), { target: { value: '1500' } });
    expect(store().composed.database.idleInTransactionSessionTimeoutMs).toBe(1500);
    fireEvent.change(screen.getByLabelText('Retry the transaction on serialization failure'), { target: { value: '0' } });
    expect(screen.getByTestId('editor-errors')).toHaveTextContent('database.serializationRetries');
    expect(store().composed.database.serializationRetries).toBe(3);
    fireEvent.change(screen.getByLabelText('Retry the transaction on serialization failure'), { target: { value: '2' } });
    expect(store().composed.database.serializationRetries).toBe(2);
    fireEvent.change(screen.getByLabelText('Worker B step 1 isolation level'), { target: { value: 'serializable' } });
    expect(store().composed.workers[1]!.steps[0]).toEqual({ do: 'begin', isolation: 'serializable' });
  }, 120_000);
  it('groups workers into processes with a pool each and runs a step in a helper on a second connection, in a user\'s words; a bad pool size is refused at its path', () => {
    store().loadPreset('balance-update', 'without');
    renderIn(view, <EditorView />);
    expect(screen.queryByLabelText('Process name')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Add process' }));
    expect(store().composed.processes).toEqual([{ id: 'web-1', poolSize: 2 }]);
    fireEvent.change(screen.getByLabelText('Its pool size'), { target: { value: '0' } });
    expect(screen.getByTestId('editor-errors')).toHaveTextContent('processes[0].poolSize');
    fireEvent.change(screen.getByLabelText('Its pool size'), { target: { value: '1' } });
    fireEvent.change(screen.getByLabelText('Give up waiting for a connection after (ms)'), { target: { value: '500' } });
    expect(store().composed.processes).toEqual([{ id: 'web-1', poolSize: 1, acquireTimeoutMs: 500 }]);
    const inProcess = screen.getAllByLabelText('Runs in process') as HTMLSelectElement[];
    expect([...inProcess[0]!.options].map((o) => o.text)).toEqual(['none (the shared pool)', 'web-1']);
    fireEvent.change(inProcess[0]!, { target: { value: 'web-1' } });
    expect(store().composed.workers[0]!.process).toBe('web-1');
    // Only the steps that send SQL offer a helper; the effect of a debit is its UPDATE.
    expect(screen.queryByLabelText('in a helper on a second connection (worker A step 1)')).toBeNull();
    fireEvent.click(screen.getByLabelText('in a helper on a second connection (worker A step 4)'));
    expect(store().composed.workers[0]!.steps[3]).toEqual({ do: 'effect', ms: 0, helper: true });
    fireEvent.click(screen.getByRole('button', { name: 'Remove process web-1' }));
    expect(store().composed.processes).toBeUndefined();
    expect(store().composed.workers[0]!.process).toBeUndefined();
  }, 120_000);

  it('puts PgBouncer between the pool and PostgreSQL in the words a user would use, and takes it out again', () => {
    store().loadPreset('session-lock-pool', 'without');
    renderIn(view, <EditorView />);
    const pooler = screen.getByLabelText('Pooler') as HTMLSelectElement;
    expect([...pooler.options].map((o) => o.text)).toEqual(['none', 'PgBouncer session mode', 'PgBouncer transaction mode']);
    expect(pooler.value).toBe('');
    fireEvent.change(pooler, { target: { value: 'transaction' } });
    expect(store().composed.database.pooler).toEqual({ mode: 'transaction', serverConnections: 2 });
    expect((screen.getByLabelText('PgBouncer server connections') as HTMLInputElement).value).toBe('2');
    fireEvent.change(pooler, { target: { value: '' } });
    expect(store().composed.database.pooler).toBeUndefined();
    expect(screen.queryByLabelText('PgBouncer server connections')).toBeNull();
  });

  it('moves the lease into etcd in a user\'s words: the token becomes the grant\'s revision, renewal and release speak etcd, and back to Redis', () => {
    store().loadPreset('export-lease-expiry', 'with');
    renderIn(view, <EditorView />);
    const where = screen.getByLabelText('The lease lives in') as HTMLSelectElement;
    expect([...where.options].map((o) => o.text)).toEqual(['Redis (SET NX PX)', 'etcd (lease grant, txn, keep-alive; its revision as the token)']);
    expect(where.value).toBe('');
    fireEvent.change(where, { target: { value: 'etcd' } });
    expect(store().composed.lockService).toEqual({ kind: 'etcd' });
    expect(store().composed.mechanism.fenceSource).toBe('lock-service-revision');
    expect(screen.getByLabelText(/Fencing token from/)).toHaveValue('lock-service-revision');
    expect(screen.getByRole('option', { name: 'etcd revision issued with the grant' })).toBeInTheDocument();
    expect([...(screen.getByLabelText('Lease renewal') as HTMLSelectElement).options].map((o) => o.text)).toEqual(['none', 'keep-alive']);
    expect([...(screen.getByLabelText('Lease release') as HTMLSelectElement).options].map((o) => o.text)).toEqual(['plain etcdctl del', 'revoke its lease']);
    expect(screen.getByText('Lease (etcd)')).toBeInTheDocument();
    expect(screen.getByLabelText('Keep-alive every (ms)')).toBeInTheDocument();
    // A TTL etcd cannot grant is refused with the reason.
    fireEvent.change(screen.getByLabelText('TTL (ms)'), { target: { value: '1500' } });
    expect(screen.getByTestId('editor-errors')).toHaveTextContent('Lease TTL: must be whole seconds (a multiple of 1000) with the lease in etcd');
    fireEvent.change(screen.getByLabelText('TTL (ms)'), { target: { value: '30000' } });
    // Back to Redis: the revision token goes with etcd (absent = INCR).
    fireEvent.change(where, { target: { value: '' } });
    expect(store().composed.lockService).toBeUndefined();
    expect(store().composed.mechanism.fenceSource).toBeUndefined();
    expect(screen.getByText('Lease (Redis)')).toBeInTheDocument();
  });

  it('edits deadlock_timeout and a step\'s own advisory lock key (lock-order-deadlock)', () => {
    store().loadPreset('lock-order-deadlock', 'without');
    renderIn(view, <EditorView />);
    fireEvent.change(screen.getByLabelText('deadlock_timeout (ms)'), { target: { value: '2000' } });
    expect(store().composed.database.deadlockTimeoutMs).toBe(2000);
    fireEvent.change(screen.getByLabelText('deadlock_timeout (ms)'), { target: { value: '' } });
    expect(store().composed.database.deadlockTimeoutMs).toBeUndefined();
    const key = screen.getByLabelText('Worker B step 2 advisory lock key') as HTMLInputElement;
    expect(key.value).toBe('2');
    fireEvent.change(key, { target: { value: '1' } });
    expect(store().composed.workers[1]!.steps[1]).toEqual({ do: 'acquire', advisoryKey: 1 });
    expect(screen.getByText(/Always checked: no wait cycle through the application/)).toBeInTheDocument();
    expect(screen.queryByLabelText(/no wait cycle through the application/)).toBeNull();
  }, 120_000);
});
