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
});
