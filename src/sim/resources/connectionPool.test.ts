import { ConnectionPool } from './connectionPool';

describe('ConnectionPool', () => {
  it('opens its connections at once and lends c1 first', () => {
    const opened: string[] = [];
    const pool = new ConnectionPool(2, (id) => opened.push(id));
    expect(opened).toEqual(['c1', 'c2']);
    expect(pool.borrow('A')).toEqual({ status: 'ok', connection: 'c1' });
  });

  it('hands out the most recently returned connection first (so session state reaches the next borrower)', () => {
    const pool = new ConnectionPool(2, () => undefined);
    pool.borrow('A');
    pool.borrow('B');
    pool.giveBack('c1');
    pool.giveBack('c2');
    expect(pool.borrow('C')).toEqual({ status: 'ok', connection: 'c2' });
  });

  it('queues borrowers FIFO when every connection is lent and hands a returned one to the first', () => {
    const pool = new ConnectionPool(1, () => undefined);
    pool.borrow('A');
    expect(pool.borrow('B')).toEqual({ status: 'waits', position: 1 });
    expect(pool.borrow('C')).toEqual({ status: 'waits', position: 2 });
    expect(pool.giveBack('c1')).toEqual({ worker: 'B', connection: 'c1' });
    expect(pool.snapshot().waiting).toEqual(['C']);
  });

  it('discarding a connection closes its session and opens a fresh one for the next waiter', () => {
    const closed: string[] = [];
    const opened: string[] = [];
    const pool = new ConnectionPool(1, (id) => opened.push(id));
    pool.borrow('A');
    pool.borrow('B');
    expect(pool.discard('c1', (id) => closed.push(id))).toEqual({ worker: 'B', connection: 'c2' });
    expect(closed).toEqual(['c1']);
    expect(opened).toEqual(['c1', 'c2']);
  });

  it('a crashed waiter leaves the queue', () => {
    const pool = new ConnectionPool(1, () => undefined);
    pool.borrow('A');
    pool.borrow('B');
    pool.cancelWait('B');
    expect(pool.giveBack('c1')).toBeNull();
  });

  it('snapshot and borrowerOf show who holds which connection and who waits', () => {
    const pool = new ConnectionPool(2, () => undefined);
    pool.borrow('A');
    pool.borrow('B');
    pool.borrow('C');
    expect(pool.snapshot()).toEqual({ connections: [{ id: 'c1', borrower: 'A' }, { id: 'c2', borrower: 'B' }], waiting: ['C'] });
    expect([pool.borrowerOf('c1'), pool.borrowerOf('c2')]).toEqual(['A', 'B']);
    pool.giveBack('c1');
    expect(pool.borrowerOf('c1')).toBe('C');
    pool.giveBack('c1');
    expect(pool.borrowerOf('c1')).toBeNull();
    expect(() => pool.borrowerOf('c9')).toThrow('no connection c9');
    expect(() => pool.giveBack('c9')).toThrow('no connection c9');
  });

  it('the first waiter in line can cancel; cancelling a worker that does not wait changes nothing', () => {
    const pool = new ConnectionPool(1, () => undefined);
    pool.borrow('A');
    pool.borrow('B');
    pool.borrow('C');
    pool.cancelWait('Z');
    pool.cancelWait('B');
    expect(pool.snapshot().waiting).toEqual(['C']);
    expect(pool.giveBack('c1')).toEqual({ worker: 'C', connection: 'c1' });
  });

  it('discarding an idle connection replaces it in the idle list; with nobody waiting, no hand-over', () => {
    const closed: string[] = [];
    const pool = new ConnectionPool(2, () => undefined);
    expect(pool.discard('c1', (id) => closed.push(id))).toBeNull();
    expect(closed).toEqual(['c1']);
    expect(pool.snapshot().connections.map((c) => c.id)).toEqual(['c2', 'c3']);
    // c1 is gone from the idle list: borrowers get c3 (the newest) and c2, then wait.
    expect([pool.borrow('A'), pool.borrow('B'), pool.borrow('C')]).toEqual([{ status: 'ok', connection: 'c3' }, { status: 'ok', connection: 'c2' }, { status: 'waits', position: 1 }]);
    expect(() => pool.discard('c1', () => undefined)).toThrow('no connection c1');
  });
});
