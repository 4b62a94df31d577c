/**
 * Hand-written SQL sequences, one or more per PostgreSQL rule of the project's semantics notes ("The semantics Lockscope must reproduce") that
 * the model implements. Each step may carry `expect`: the reply the rule predicts (a prefix of
 * the model's rendered reply), so a case that stops showing its rule fails as well.
 */
import type { AdvisoryFn, AdvisoryKey, Stmt, TableSpec } from '../src/sim/resources/sqlTypes';
import type { SqlCase, SqlOp } from './types';

const b = (key: number): AdvisoryKey => ({ kind: 'bigint', key });
const p = (key1: number, key2: number): AdvisoryKey => ({ kind: 'pair', key1, key2 });
const adv = (fn: AdvisoryFn, key: AdvisoryKey): Stmt => ({ op: 'advisory', fn, key });
const BEGIN: Stmt = { op: 'begin' };
const COMMIT: Stmt = { op: 'commit' };
const ROLLBACK: Stmt = { op: 'rollback' };

/** `s` runs `stmt`, expecting a reply starting with `expect`. */
function on(s: string, stmt: Stmt, expect?: string): SqlOp {
  return expect === undefined ? { s, stmt } : { s, stmt, expect };
}

const VOID = '(void)';
const WAITS = 'waits';
const NOT_OWNED = "WARNING:  you don't own a lock of type ExclusiveLock; f";

export const INVOICES: TableSpec = {
  name: 'invoices',
  columns: [{ name: 'id', type: 'bigint', serial: true }, { name: 'order_id', type: 'bigint' }, { name: 'amount', type: 'bigint' }],
  primaryKey: ['id'],
  unique: [{ name: 'invoices_order_id_key', columns: ['order_id'] }],
};
export const ITEMS: TableSpec = {
  name: 'items',
  columns: [{ name: 'id', type: 'bigint' }, { name: 'stock', type: 'bigint' }],
  primaryKey: ['id'],
  checks: [{ name: 'items_stock_check', column: 'stock', min: 0 }],
  initialRows: [{ id: 7, stock: 1 }, { id: 8, stock: 5 }],
};
export const ACCOUNTS: TableSpec = {
  name: 'accounts',
  columns: [{ name: 'id', type: 'bigint' }, { name: 'balance', type: 'bigint' }],
  primaryKey: ['id'],
  initialRows: [{ id: 1, balance: 100 }],
};
export const QUEUE: TableSpec = {
  name: 'queue',
  columns: [{ name: 'id', type: 'bigint' }, { name: 'status', type: 'text' }],
  primaryKey: ['id'],
  initialRows: [{ id: 1, status: 'pending' }, { id: 2, status: 'pending' }, { id: 3, status: 'pending' }],
};

export const DOCUMENTS: TableSpec = {
  name: 'documents',
  columns: [{ name: 'id', type: 'bigint' }, { name: 'body', type: 'text' }, { name: 'fence', type: 'bigint' }],
  primaryKey: ['id'],
  initialRows: [{ id: 7, body: 'v0', fence: 0 }],
};

const insertInvoice = (order: number, extra: Partial<Extract<Stmt, { op: 'insert' }>> = {}): Stmt => ({
  op: 'insert', table: 'invoices', values: { order_id: order, amount: 100 }, returning: ['id'], ...extra,
});

const delInvoice = (order: number): Stmt => ({ op: 'delete', table: 'invoices', where: { order_id: order } });
const setOrder = (from: number, to: number): Stmt => ({ op: 'update', table: 'invoices', set: { order_id: to }, where: { order_id: from } });

const advisoryCase = (name: string, sessions: string[], ops: SqlOp[], extra: Partial<SqlCase> = {}): SqlCase => ({
  name, primitive: 'advisory locks', tables: [], sessions, ops, ...extra,
});

const ADVISORY: SqlCase[] = [
  advisoryCase('function table: every function on a free key, one session', ['s1'], [
    on('s1', adv('pg_advisory_lock', b(1)), VOID),
    on('s1', adv('pg_advisory_unlock', b(1)), 't'),
    on('s1', adv('pg_try_advisory_lock', b(1)), 't'),
    on('s1', adv('pg_advisory_unlock', b(1)), 't'),
    on('s1', adv('pg_advisory_unlock', b(1)), NOT_OWNED),
    on('s1', adv('pg_advisory_lock_shared', b(1)), VOID),
    on('s1', adv('pg_try_advisory_lock_shared', b(1)), 't'),
    on('s1', adv('pg_advisory_unlock', b(1)), NOT_OWNED),
    on('s1', adv('pg_advisory_unlock_shared', b(1)), 't'),
    on('s1', adv('pg_advisory_unlock_shared', b(1)), 't'),
    on('s1', adv('pg_advisory_unlock_shared', b(1)), "WARNING:  you don't own a lock of type ShareLock; f"),
    on('s1', BEGIN, 'BEGIN'),
    on('s1', adv('pg_advisory_xact_lock', b(1)), VOID),
    on('s1', adv('pg_try_advisory_xact_lock', b(1)), 't'),
    on('s1', adv('pg_advisory_xact_lock_shared', b(2)), VOID),
    on('s1', adv('pg_try_advisory_xact_lock_shared', b(2)), 't'),
    on('s1', COMMIT, 'COMMIT'),
    { s: 's1', stmt: { op: 'advisoryUnlockAll' }, expect: VOID },
  ]),
  advisoryCase('exclusive lock waits; unlock hands it to the waiter', ['s1', 's2'], [
    on('s1', adv('pg_advisory_lock', b(1)), VOID),
    on('s2', adv('pg_try_advisory_lock', b(1)), 'f'),
    on('s2', adv('pg_advisory_lock', b(1)), WAITS),
    on('s1', adv('pg_advisory_unlock', b(1)), 't'),
    on('s1', adv('pg_try_advisory_lock', b(1)), 'f'),
  ]),
  advisoryCase('stacking: three locks need three unlocks', ['s1', 's2'], [
    on('s1', adv('pg_advisory_lock', b(3)), VOID),
    on('s1', adv('pg_advisory_lock', b(3)), VOID),
    on('s1', adv('pg_try_advisory_lock', b(3)), 't'),
    on('s2', adv('pg_advisory_lock', b(3)), WAITS),
    on('s1', adv('pg_advisory_unlock', b(3)), 't'),
    on('s1', adv('pg_advisory_unlock', b(3)), 't'),
    on('s1', adv('pg_advisory_unlock', b(3)), 't'),
    on('s1', adv('pg_advisory_unlock', b(3)), NOT_OWNED),
  ]),
  advisoryCase('re-entrancy ahead of a queued waiter', ['s1', 's2', 's3'], [
    on('s1', adv('pg_advisory_lock', b(4)), VOID),
    on('s2', adv('pg_advisory_lock', b(4)), WAITS),
    on('s3', adv('pg_advisory_lock', b(4)), WAITS),
    on('s1', adv('pg_advisory_lock', b(4)), VOID),
    on('s1', adv('pg_try_advisory_lock', b(4)), 't'),
    on('s1', adv('pg_advisory_unlock', b(4)), 't'),
    on('s1', adv('pg_advisory_unlock', b(4)), 't'),
    on('s1', adv('pg_advisory_unlock', b(4)), 't'),
    on('s2', adv('pg_advisory_unlock', b(4)), 't'),
    on('s3', adv('pg_advisory_unlock', b(4)), 't'),
  ]),
  advisoryCase('a session lock taken in a transaction survives ROLLBACK', ['s1', 's2'], [
    on('s1', BEGIN),
    on('s1', adv('pg_advisory_lock', b(5)), VOID),
    on('s1', ROLLBACK, 'ROLLBACK'),
    on('s2', adv('pg_try_advisory_lock', b(5)), 'f'),
    on('s1', adv('pg_advisory_unlock', b(5)), 't'),
    on('s2', adv('pg_try_advisory_lock', b(5)), 't'),
  ]),
  advisoryCase('an unlock inside a transaction that later fails still took effect', ['s1', 's2'], [
    on('s1', adv('pg_advisory_lock', b(6)), VOID),
    on('s1', BEGIN),
    on('s1', adv('pg_advisory_unlock', b(6)), 't'),
    on('s1', insertInvoice(1)),
    on('s1', insertInvoice(1), 'ERROR 23505'),
    on('s1', adv('pg_advisory_lock', b(6)), 'ERROR 25P02'),
    on('s1', ROLLBACK, 'ROLLBACK'),
    on('s2', adv('pg_try_advisory_lock', b(6)), 't'),
  ], { tables: [INVOICES] }),
  advisoryCase('unlock of an unheld lock and of a transaction-held lock: f + WARNING', ['s1', 's2'], [
    on('s1', adv('pg_advisory_unlock', b(8)), NOT_OWNED),
    on('s2', adv('pg_advisory_lock', b(8)), VOID),
    on('s1', adv('pg_advisory_unlock', b(8)), NOT_OWNED),
    on('s1', BEGIN),
    on('s1', adv('pg_advisory_xact_lock', b(9)), VOID),
    on('s1', adv('pg_advisory_unlock', b(9)), NOT_OWNED),
    on('s2', adv('pg_try_advisory_lock', b(9)), 'f'),
    on('s1', COMMIT, 'COMMIT'),
    on('s2', adv('pg_try_advisory_lock', b(9)), 't'),
  ]),
  advisoryCase('the two key spaces never overlap', ['s1', 's2'], [
    on('s1', adv('pg_advisory_lock', b(1)), VOID),
    on('s2', adv('pg_try_advisory_lock', p(0, 1)), 't'),
    on('s2', adv('pg_try_advisory_lock', b(1)), 'f'),
    on('s1', adv('pg_advisory_lock', p(1, 2)), VOID),
    on('s2', adv('pg_try_advisory_lock', p(2, 1)), 't'),
    on('s2', adv('pg_try_advisory_lock', p(1, 2)), 'f'),
    on('s1', adv('pg_try_advisory_lock', p(0, 1)), 'f'),
    on('s1', adv('pg_advisory_unlock', p(0, 1)), NOT_OWNED),
  ]),
  advisoryCase('transaction lock released at COMMIT, then at ROLLBACK; session and xact requests conflict', ['s1', 's2'], [
    on('s1', BEGIN),
    on('s1', adv('pg_advisory_xact_lock', b(10)), VOID),
    on('s2', adv('pg_advisory_lock', b(10)), WAITS),
    on('s1', COMMIT, 'COMMIT'),
    on('s1', BEGIN),
    on('s1', adv('pg_advisory_xact_lock', b(10)), WAITS),
    on('s2', adv('pg_advisory_unlock', b(10)), 't'),
    on('s2', BEGIN),
    on('s2', adv('pg_try_advisory_xact_lock', b(10)), 'f'),
    on('s1', ROLLBACK, 'ROLLBACK'),
    on('s2', adv('pg_try_advisory_xact_lock', b(10)), 't'),
    on('s2', COMMIT),
  ]),
  advisoryCase('an xact lock in autocommit is released at once', ['s1', 's2'], [
    on('s1', adv('pg_advisory_xact_lock', b(17)), VOID),
    on('s2', adv('pg_try_advisory_lock', b(17)), 't'),
    on('s1', adv('pg_try_advisory_xact_lock', b(17)), 'f'),
  ]),
  advisoryCase('shared holders coexist; an exclusive waiter blocks later shared requests (FIFO)', ['s1', 's2', 's3', 's4'], [
    on('s1', adv('pg_advisory_lock_shared', b(11)), VOID),
    on('s2', adv('pg_advisory_lock_shared', b(11)), VOID),
    on('s3', adv('pg_advisory_lock', b(11)), WAITS),
    on('s4', adv('pg_try_advisory_lock_shared', b(11)), 'f'),
    on('s4', adv('pg_advisory_lock_shared', b(11)), WAITS),
    on('s1', adv('pg_advisory_unlock_shared', b(11)), 't'),
    on('s2', adv('pg_advisory_unlock_shared', b(11)), 't'),
    on('s3', adv('pg_advisory_unlock', b(11)), 't'),
  ]),
  advisoryCase('shared waiters are released together', ['s1', 's2', 's3', 's4'], [
    on('s1', adv('pg_advisory_lock', b(12)), VOID),
    on('s2', adv('pg_advisory_lock_shared', b(12)), WAITS),
    on('s3', adv('pg_advisory_lock_shared', b(12)), WAITS),
    on('s4', adv('pg_advisory_lock', b(12)), WAITS),
    on('s1', adv('pg_advisory_unlock', b(12)), 't'),
    on('s2', adv('pg_advisory_unlock_shared', b(12)), 't'),
    on('s3', adv('pg_advisory_unlock_shared', b(12)), 't'),
  ]),
  advisoryCase('waiters proceed one by one in FIFO order', ['s1', 's2', 's3', 's4'], [
    on('s1', adv('pg_advisory_lock', b(18)), VOID),
    on('s2', adv('pg_advisory_lock', b(18)), WAITS),
    on('s3', adv('pg_advisory_lock', b(18)), WAITS),
    on('s4', adv('pg_advisory_lock', b(18)), WAITS),
    on('s1', adv('pg_advisory_unlock', b(18)), 't'), // only s2, the first in the queue, proceeds
    on('s2', adv('pg_advisory_unlock', b(18)), 't'), // then only s3
    on('s3', adv('pg_advisory_unlock', b(18)), 't'), // then s4
  ]),
  advisoryCase('a transaction-scoped waiter released in autocommit passes the lock straight on', ['s1', 's2', 's3', 's4'], [
    on('s1', adv('pg_advisory_lock', b(19)), VOID),
    on('s2', adv('pg_advisory_lock', b(19)), WAITS),
    on('s3', adv('pg_advisory_xact_lock', b(19)), WAITS),
    on('s4', adv('pg_advisory_lock', b(19)), WAITS),
    on('s1', adv('pg_advisory_unlock', b(19)), 't'),
    on('s2', adv('pg_advisory_unlock', b(19)), 't'), // s3 gets it, its statement ends, s4 gets it
  ]),
  advisoryCase('pg_advisory_unlock_all drops every session lock; session end releases the rest', ['s1', 's2', 's3'], [
    on('s1', adv('pg_advisory_lock', b(13)), VOID),
    on('s1', adv('pg_advisory_lock', b(13)), VOID),
    on('s1', adv('pg_advisory_lock', p(13, 13)), VOID),
    on('s2', adv('pg_advisory_lock', b(13)), WAITS),
    { s: 's1', stmt: { op: 'advisoryUnlockAll' }, expect: VOID },
    on('s1', adv('pg_advisory_unlock', p(13, 13)), NOT_OWNED),
    on('s3', adv('pg_advisory_lock', b(13)), WAITS),
    { s: 's2', close: true },
    on('s3', adv('pg_advisory_unlock', b(13)), 't'),
  ]),
  advisoryCase('lock_timeout cancels a waiting pg_advisory_lock (55P03); session locks already held remain', ['s1', 's2'], [
    on('s2', adv('pg_advisory_lock', b(15)), VOID),
    on('s1', adv('pg_advisory_lock', b(14)), VOID),
    on('s2', BEGIN),
    on('s2', adv('pg_advisory_lock', b(14)), WAITS),
    { s: 's2', cancel: 'lockTimeout', expect: 'ERROR 55P03 canceling statement due to lock timeout' },
    on('s2', adv('pg_try_advisory_lock', b(16)), 'ERROR 25P02'),
    on('s2', COMMIT, 'ROLLBACK'),
    on('s1', adv('pg_try_advisory_lock', b(15)), 'f'),
  ], { primitive: 'sessions & cancel', sessionSetup: { s2: ["SET lock_timeout = '300ms'"] } }),
  advisoryCase('a cancelled wait (57014) leaves the queue; the next waiter gets the lock', ['s1', 's2', 's3'], [
    on('s1', adv('pg_advisory_lock', b(16)), VOID),
    on('s2', adv('pg_advisory_lock', b(16)), WAITS),
    on('s3', adv('pg_advisory_lock', b(16)), WAITS),
    { s: 's2', cancel: 'userRequest', expect: 'ERROR 57014' },
    on('s1', adv('pg_advisory_unlock', b(16)), 't'),
  ], { primitive: 'sessions & cancel' }),
  advisoryCase('a holder asking for the lock in the other mode goes ahead of a conflicting waiter', ['s1', 's2', 's3'], [
    on('s1', adv('pg_advisory_lock_shared', b(19)), VOID),
    on('s2', adv('pg_advisory_lock_shared', b(19)), VOID),
    on('s3', adv('pg_advisory_lock', b(19)), WAITS),
    on('s1', adv('pg_advisory_lock', b(19)), WAITS),
    on('s2', adv('pg_advisory_unlock_shared', b(19)), 't'),
    on('s1', adv('pg_advisory_unlock', b(19)), 't'),
    on('s1', adv('pg_advisory_unlock_shared', b(19)), 't'),
  ]),
];

const UNIQUE: SqlCase[] = [
  {
    name: 'concurrent insert of one key waits, then 23505 when the first commits', primitive: 'unique inserts', tables: [INVOICES], sessions: ['s1', 's2'],
    ops: [
      on('s1', BEGIN), on('s1', insertInvoice(42), 'INSERT 0 1 → id=1'),
      on('s2', insertInvoice(42), WAITS),
      on('s1', COMMIT, 'COMMIT'),
      on('s2', { op: 'select', table: 'invoices', where: { order_id: 42 } }, 'SELECT 1'),
    ],
  },
  {
    name: 'concurrent insert of one key succeeds after the first rolls back', primitive: 'unique inserts', tables: [INVOICES], sessions: ['s1', 's2'],
    ops: [
      on('s1', BEGIN), on('s1', insertInvoice(42)),
      on('s2', BEGIN), on('s2', insertInvoice(42), WAITS),
      on('s1', ROLLBACK, 'ROLLBACK'),
      on('s2', COMMIT, 'COMMIT'),
      on('s1', insertInvoice(42), 'ERROR 23505'),
    ],
  },
  {
    name: 'ON CONFLICT DO NOTHING RETURNING waits, then returns no row; the loser selects the winner', primitive: 'unique inserts', tables: [INVOICES], sessions: ['s1', 's2'],
    ops: [
      on('s1', BEGIN), on('s1', insertInvoice(42)),
      on('s2', insertInvoice(42, { onConflictDoNothing: true }), WAITS),
      on('s1', COMMIT),
      on('s2', { op: 'select', table: 'invoices', columns: ['id'], where: { order_id: 42 } }, 'SELECT 1 → id=1'),
      on('s2', insertInvoice(42, { onConflictDoNothing: true }), 'INSERT 0 0'),
      on('s2', insertInvoice(43, { onConflictDoNothing: true }), 'INSERT 0 1 → id=4'),
    ],
  },
  {
    name: 'three inserters, the first commits: both waiters get 23505', primitive: 'unique inserts', tables: [INVOICES], sessions: ['s1', 's2', 's3'],
    ops: [
      on('s1', BEGIN), on('s1', insertInvoice(7)),
      on('s2', insertInvoice(7), WAITS),
      on('s3', insertInvoice(7, { onConflictDoNothing: true }), WAITS),
      on('s1', COMMIT),
    ],
  },
  {
    name: 'three inserters, the first rolls back (excluded: which waiter wins is a race)', primitive: 'unique inserts', tables: [INVOICES], sessions: ['s1', 's2', 's3'],
    ops: [
      on('s1', BEGIN), on('s1', insertInvoice(7)),
      on('s2', insertInvoice(7), WAITS),
      on('s3', insertInvoice(7), WAITS),
      on('s1', ROLLBACK),
    ],
  },
  {
    name: 'insert of a key deleted by an uncommitted transaction waits, then succeeds', primitive: 'unique inserts', tables: [INVOICES], sessions: ['s1', 's2'],
    ops: [
      on('s1', insertInvoice(5)),
      on('s1', BEGIN), on('s1', { op: 'delete', table: 'invoices', where: { order_id: 5 } }, 'DELETE 1'),
      on('s2', insertInvoice(5), WAITS),
      on('s1', COMMIT),
    ],
  },
  {
    name: 'insert of a key whose row another transaction updates waits, then 23505', primitive: 'unique inserts', tables: [INVOICES], sessions: ['s1', 's2'],
    ops: [
      on('s1', insertInvoice(5)),
      on('s1', BEGIN), on('s1', { op: 'update', table: 'invoices', set: { amount: 7 }, where: { order_id: 5 } }, 'UPDATE 1'),
      on('s2', insertInvoice(5), WAITS),
      on('s1', COMMIT),
      on('s1', BEGIN), on('s1', { op: 'select', table: 'invoices', where: { order_id: 5 }, lock: 'forUpdate' }, 'SELECT 1'),
      on('s2', insertInvoice(5), 'ERROR 23505'),
      on('s1', COMMIT),
    ],
  },
  // Found by the generated sequences (seed 1475034870, issue 16). PostgreSQL's unique check meets
  // one index entry per row version and waits for a version's inserting transaction while it is in
  // progress, whatever that transaction did to the version afterwards (deleted it, changed its key).
  ...(['COMMIT', 'ROLLBACK'] as const).flatMap((end): SqlCase[] => {
    const END = end === 'COMMIT' ? COMMIT : ROLLBACK;
    return [
      {
        name: `insert of a key another open transaction inserted then deleted waits, then succeeds after its ${end}`, primitive: 'unique inserts', tables: [INVOICES], sessions: ['s1', 's2'],
        ops: [
          on('s2', BEGIN), on('s2', insertInvoice(2), 'INSERT 0 1 → id=1'), on('s2', delInvoice(2), 'DELETE 1'),
          on('s1', BEGIN), on('s1', insertInvoice(2), WAITS),
          on('s2', END, end),
          on('s1', COMMIT, 'COMMIT'),
          on('s1', { op: 'select', table: 'invoices', columns: ['id'], where: { order_id: 2 } }, 'SELECT 1 → id=2'),
        ],
      },
      {
        name: `insert of a key another open transaction inserted then updated away waits, as does its new key; after ${end}`, primitive: 'unique inserts', tables: [INVOICES], sessions: ['s1', 's2', 's3'],
        ops: [
          on('s2', BEGIN), on('s2', insertInvoice(2)), on('s2', setOrder(2, 3), 'UPDATE 1'),
          on('s1', insertInvoice(2), WAITS),
          on('s3', insertInvoice(3), WAITS),
          on('s2', END, end),
          on('s1', { op: 'select', table: 'invoices', columns: ['order_id'], where: {} }, 'SELECT 2'),
        ],
      },
      {
        name: `a committed key another open transaction updated away and back: both keys wait; after ${end}`, primitive: 'unique inserts', tables: [INVOICES], sessions: ['s1', 's2', 's3'],
        ops: [
          on('s3', insertInvoice(1), 'INSERT 0 1 → id=1'),
          on('s2', BEGIN), on('s2', setOrder(1, 2), 'UPDATE 1'), on('s2', setOrder(2, 1), 'UPDATE 1'),
          on('s1', insertInvoice(2), WAITS),
          on('s3', insertInvoice(1), WAITS),
          on('s2', END, end),
          on('s1', { op: 'select', table: 'invoices', columns: ['order_id'], where: {} }, 'SELECT 2'),
        ],
      },
      {
        name: `an UPDATE onto a key another open transaction inserted then deleted waits, then updates after its ${end}`, primitive: 'unique inserts', tables: [INVOICES], sessions: ['s1', 's2'],
        ops: [
          on('s1', insertInvoice(1)),
          on('s2', BEGIN), on('s2', insertInvoice(2)), on('s2', delInvoice(2)),
          on('s1', BEGIN), on('s1', setOrder(1, 2), WAITS),
          on('s2', END, end),
          on('s1', COMMIT, 'COMMIT'),
          on('s2', { op: 'select', table: 'invoices', columns: ['id'], where: { order_id: 2 } }, 'SELECT 1 → id=1'),
        ],
      },
    ];
  }),
  // PostgreSQL writes an UPDATE's new version before its unique check waits, so the version it
  // replaces has the waiting updater as xmax: a unique check on the old key waits for the updater.
  ...(['COMMIT', 'ROLLBACK'] as const).map((end): SqlCase => ({
    name: `while a key-changing UPDATE waits for another transaction, an insert of its old key waits for the updater (${end})`, primitive: 'unique inserts', tables: [INVOICES], sessions: ['s1', 's2', 's3', 's4'],
    ops: [
      on('s4', insertInvoice(1)),
      on('s2', BEGIN), on('s2', insertInvoice(2)),
      on('s1', BEGIN), on('s1', setOrder(1, 2), WAITS),
      on('s3', insertInvoice(1), WAITS),
      on('s4', { op: 'select', table: 'invoices', where: { order_id: 1 }, lock: 'forUpdateNowait' }, 'ERROR 55P03'),
      on('s2', end === 'COMMIT' ? COMMIT : ROLLBACK, end),
      on('s1', COMMIT, end === 'COMMIT' ? 'ROLLBACK' : 'COMMIT'),
      on('s4', { op: 'select', table: 'invoices', columns: ['id', 'order_id'], where: {} }, 'SELECT 2'),
    ],
  })),
  {
    name: 'ON CONFLICT DO NOTHING waits the same way on versions an open transaction deleted or updated away', primitive: 'unique inserts', tables: [INVOICES], sessions: ['s1', 's2'],
    ops: [
      on('s1', insertInvoice(1)),
      on('s2', BEGIN), on('s2', insertInvoice(5)), on('s2', delInvoice(5)),
      on('s1', insertInvoice(5, { onConflictDoNothing: true }), WAITS),
      on('s2', COMMIT, 'COMMIT'),
      on('s2', BEGIN), on('s2', setOrder(1, 6)), on('s2', setOrder(6, 1)),
      on('s1', insertInvoice(1, { onConflictDoNothing: true }), WAITS),
      on('s2', COMMIT, 'COMMIT'),
      on('s1', { op: 'select', table: 'invoices', columns: ['order_id'], where: {} }, 'SELECT 2'),
    ],
  },
  {
    name: 'a key inserted, deleted and inserted again by an open transaction: the waiter gets 23505 after COMMIT', primitive: 'unique inserts', tables: [INVOICES], sessions: ['s1', 's2'],
    ops: [
      on('s2', BEGIN), on('s2', insertInvoice(2)), on('s2', delInvoice(2)), on('s2', insertInvoice(2), 'INSERT 0 1 → id=2'),
      on('s1', insertInvoice(2), WAITS),
      on('s2', COMMIT, 'COMMIT'),
      on('s1', insertInvoice(2), 'ERROR 23505'),
    ],
  },
  {
    name: 'the own transaction\'s deleted or updated-away versions never conflict', primitive: 'unique inserts', tables: [INVOICES], sessions: ['s1'],
    ops: [
      on('s1', insertInvoice(1)),
      on('s1', BEGIN), on('s1', insertInvoice(2)), on('s1', delInvoice(2)), on('s1', insertInvoice(2), 'INSERT 0 1 → id=3'),
      on('s1', setOrder(2, 3), 'UPDATE 1'), on('s1', insertInvoice(2), 'INSERT 0 1 → id=4'),
      on('s1', setOrder(1, 4), 'UPDATE 1'), on('s1', insertInvoice(1), 'INSERT 0 1 → id=5'),
      on('s1', COMMIT, 'COMMIT'),
    ],
  },
  {
    name: 'check-then-insert without a unique key: both inserts succeed', primitive: 'unique inserts',
    tables: [{ ...INVOICES, unique: [] }], sessions: ['s1', 's2'],
    ops: [
      on('s1', BEGIN), on('s1', { op: 'select', table: 'invoices', where: { order_id: 42 } }, 'SELECT 0'),
      on('s2', BEGIN), on('s2', { op: 'select', table: 'invoices', where: { order_id: 42 } }, 'SELECT 0'),
      on('s1', insertInvoice(42), 'INSERT 0 1'), on('s2', insertInvoice(42), 'INSERT 0 1'),
      on('s1', COMMIT), on('s2', COMMIT),
      on('s1', { op: 'select', table: 'invoices', columns: ['id'], where: { order_id: 42 } }, 'SELECT 2'),
    ],
  },
  {
    name: 'NOT NULL on the primary key (23502) and an UPDATE onto an existing key (23505)', primitive: 'unique inserts', tables: [ACCOUNTS, INVOICES], sessions: ['s1'],
    ops: [
      on('s1', { op: 'insert', table: 'accounts', values: { id: null, balance: 1 } }, 'ERROR 23502'),
      on('s1', insertInvoice(1)), on('s1', insertInvoice(2)),
      on('s1', { op: 'update', table: 'invoices', set: { order_id: 2 }, where: { order_id: 1 } }, 'ERROR 23505'),
    ],
  },
];

const ROWS: SqlCase[] = [
  {
    name: 'FOR UPDATE waits for the holder, then reads the committed value', primitive: 'row locks', tables: [ACCOUNTS], sessions: ['s1', 's2'],
    ops: [
      on('s1', BEGIN), on('s1', { op: 'select', table: 'accounts', columns: ['balance'], where: { id: 1 }, lock: 'forUpdate' }, 'SELECT 1 → balance=100'),
      on('s2', BEGIN), on('s2', { op: 'select', table: 'accounts', columns: ['balance'], where: { id: 1 }, lock: 'forUpdate' }, WAITS),
      on('s1', { op: 'update', table: 'accounts', set: { balance: 70 }, where: { id: 1 } }, 'UPDATE 1'),
      on('s1', COMMIT),
      on('s2', { op: 'update', table: 'accounts', set: { balance: 20 }, where: { id: 1 } }, 'UPDATE 1'),
      on('s2', COMMIT),
    ],
  },
  {
    name: 'NOWAIT fails at once with 55P03; SKIP LOCKED omits the locked row', primitive: 'row locks', tables: [QUEUE], sessions: ['s1', 's2'],
    ops: [
      on('s1', BEGIN), on('s1', { op: 'select', table: 'queue', where: { id: 1 }, lock: 'forUpdate' }, 'SELECT 1'),
      on('s2', BEGIN), on('s2', { op: 'select', table: 'queue', where: { id: 1 }, lock: 'forUpdateNowait' }, 'ERROR 55P03'),
      on('s2', ROLLBACK),
      on('s2', { op: 'select', table: 'queue', where: { status: 'pending' }, lock: 'forUpdateSkipLocked' }, 'SELECT 2'),
      on('s2', { op: 'select', table: 'queue', where: { id: 1 }, lock: 'forUpdateSkipLocked' }, 'SELECT 0'),
      on('s1', COMMIT),
      on('s2', { op: 'select', table: 'queue', where: { id: 1 }, lock: 'forUpdateNowait' }, 'SELECT 1'),
    ],
  },
  {
    // A row queue (skip-locked-claim): the claim's row lock ends at its COMMIT, so a claim in one
    // transaction and the mark in another let a second worker claim the still-pending row.
    name: 'queue claim committed before the mark: a second SKIP LOCKED claim gets the same rows, both marks succeed', primitive: 'row locks', tables: [QUEUE], sessions: ['s1', 's2'],
    ops: [
      on('s1', BEGIN), on('s1', { op: 'select', table: 'queue', columns: ['id'], where: { status: 'pending' }, lock: 'forUpdateSkipLocked' }, 'SELECT 3'),
      on('s1', COMMIT),
      on('s2', BEGIN), on('s2', { op: 'select', table: 'queue', columns: ['id'], where: { status: 'pending' }, lock: 'forUpdateSkipLocked' }, 'SELECT 3'),
      on('s2', COMMIT),
      on('s1', { op: 'update', table: 'queue', set: { status: 'running' }, where: { id: 1 } }, 'UPDATE 1'),
      on('s2', { op: 'update', table: 'queue', set: { status: 'running' }, where: { id: 1 } }, 'UPDATE 1'),
    ],
  },
  {
    // The fix: claim and mark in one transaction; SKIP LOCKED passes over the locked rows, and
    // after the COMMIT the marked row no longer matches `status = 'pending'`.
    name: 'queue claim and mark in one transaction: SKIP LOCKED passes over the claimed rows; after COMMIT the marked row is not pending', primitive: 'row locks', tables: [QUEUE], sessions: ['s1', 's2'],
    ops: [
      on('s1', BEGIN), on('s1', { op: 'select', table: 'queue', columns: ['id'], where: { status: 'pending' }, lock: 'forUpdateSkipLocked' }, 'SELECT 3'),
      on('s1', { op: 'update', table: 'queue', set: { status: 'running' }, where: { id: 1 } }, 'UPDATE 1'),
      on('s2', BEGIN), on('s2', { op: 'select', table: 'queue', columns: ['id'], where: { status: 'pending' }, lock: 'forUpdateSkipLocked' }, 'SELECT 0'),
      on('s1', COMMIT),
      on('s2', { op: 'select', table: 'queue', columns: ['id'], where: { status: 'pending' }, lock: 'forUpdateSkipLocked' }, 'SELECT 2'),
      on('s2', COMMIT),
    ],
  },
  {
    name: 'FOR UPDATE of a row the holder deletes: no row after its commit', primitive: 'row locks', tables: [QUEUE], sessions: ['s1', 's2'],
    ops: [
      on('s1', BEGIN), on('s1', { op: 'delete', table: 'queue', where: { id: 2 } }, 'DELETE 1'),
      on('s2', { op: 'select', table: 'queue', where: { id: 2 }, lock: 'forUpdate' }, WAITS),
      on('s1', COMMIT),
    ],
  },
  {
    name: 'UPDATE re-checks its WHERE on the new version after waiting', primitive: 'row locks', tables: [QUEUE], sessions: ['s1', 's2'],
    ops: [
      on('s1', BEGIN), on('s1', { op: 'update', table: 'queue', set: { status: 'done' }, where: { id: 1 } }, 'UPDATE 1'),
      on('s2', { op: 'update', table: 'queue', set: { status: 'taken' }, where: { id: 1, status: 'pending' } }, WAITS),
      on('s1', COMMIT),
      on('s1', BEGIN), on('s1', { op: 'update', table: 'queue', set: { status: 'done' }, where: { id: 3 } }, 'UPDATE 1'),
      on('s2', { op: 'update', table: 'queue', set: { status: 'taken' }, where: { id: 3, status: 'pending' } }, WAITS),
      on('s1', ROLLBACK),
    ],
  },
  {
    name: 'the lost update: two read-modify-write transactions without a row lock', primitive: 'row locks', tables: [ACCOUNTS], sessions: ['s1', 's2'],
    ops: [
      on('s1', BEGIN), on('s1', { op: 'select', table: 'accounts', columns: ['balance'], where: { id: 1 } }, 'SELECT 1 → balance=100'),
      on('s2', BEGIN), on('s2', { op: 'select', table: 'accounts', columns: ['balance'], where: { id: 1 } }, 'SELECT 1 → balance=100'),
      on('s1', { op: 'update', table: 'accounts', set: { balance: 70 }, where: { id: 1 } }, 'UPDATE 1'),
      on('s1', COMMIT),
      on('s2', { op: 'update', table: 'accounts', set: { balance: 50 }, where: { id: 1 } }, 'UPDATE 1'),
      on('s2', COMMIT),
      on('s1', { op: 'select', table: 'accounts', columns: ['balance'], where: { id: 1 } }, 'SELECT 1 → balance=50'),
    ],
  },
  {
    name: 'stock = stock - 1 waits, then fails the CHECK (23514) on the re-read row', primitive: 'row locks', tables: [ITEMS], sessions: ['s1', 's2'],
    ops: [
      on('s1', BEGIN), on('s1', { op: 'update', table: 'items', set: { stock: { column: 'stock', add: -1 } }, where: { id: 7 } }, 'UPDATE 1'),
      on('s2', BEGIN), on('s2', { op: 'update', table: 'items', set: { stock: { column: 'stock', add: -1 } }, where: { id: 7 } }, WAITS),
      on('s1', COMMIT),
      on('s2', { op: 'select', table: 'items', where: { id: 7 } }, 'ERROR 25P02'),
      on('s2', ROLLBACK),
      on('s2', { op: 'update', table: 'items', set: { stock: { column: 'stock', add: -1 } }, where: { id: 7 } }, 'ERROR 23514'),
    ],
  },
  {
    name: 'an UPDATE whose own snapshot already violates the CHECK fails without waiting', primitive: 'row locks', tables: [ITEMS], sessions: ['s1', 's2'],
    ops: [
      on('s1', BEGIN), on('s1', { op: 'update', table: 'items', set: { stock: 9 }, where: { id: 8 } }, 'UPDATE 1'),
      on('s2', { op: 'update', table: 'items', set: { stock: { column: 'stock', add: -6 } }, where: { id: 8 } }, 'ERROR 23514'),
      on('s2', { op: 'update', table: 'items', set: { stock: { column: 'stock', add: -5 } }, where: { id: 8 } }, WAITS),
      on('s1', COMMIT),
    ],
  },
  {
    // Found by the generated sequences (seed 747020795). PostgreSQL's sequential scan visits row
    // versions in physical order, and an UPDATE writes the new version after the existing ones:
    // once id 7 was updated, a multi-row FOR UPDATE reaches id 8 first, locks it, then waits for
    // id 7. The model scans in insertion order (id 7 first), waits there, and never locks id 8.
    name: 'multi-row FOR UPDATE locks rows in physical order (an updated row comes last)', primitive: 'row locks', tables: [ITEMS], sessions: ['s1', 's2', 's3'],
    ops: [
      on('s1', { op: 'update', table: 'items', set: { stock: { column: 'stock', add: 1 } }, where: { id: 7 } }, 'UPDATE 1'),
      on('s2', BEGIN), on('s2', { op: 'update', table: 'items', set: { stock: { column: 'stock', add: 1 } }, where: { id: 7 } }, 'UPDATE 1'),
      on('s3', BEGIN), on('s3', { op: 'select', table: 'items', columns: ['id'], where: {}, lock: 'forUpdate' }, WAITS),
      on('s1', { op: 'update', table: 'items', set: { stock: 0 }, where: { id: 8 } }),
      on('s2', ROLLBACK),
    ],
  },
  {
    name: 'row-lock waiters proceed one at a time in arrival order', primitive: 'row locks', tables: [ITEMS], sessions: ['s1', 's2', 's3'],
    ops: [
      on('s1', BEGIN), on('s1', { op: 'select', table: 'items', where: { id: 8 }, lock: 'forUpdate' }),
      on('s2', BEGIN), on('s2', { op: 'update', table: 'items', set: { stock: { column: 'stock', add: -1 } }, where: { id: 8 }, returning: ['stock'] }, WAITS),
      on('s3', { op: 'update', table: 'items', set: { stock: { column: 'stock', add: -2 } }, where: { id: 8 }, returning: ['stock'] }, WAITS),
      on('s1', ROLLBACK),
      on('s2', COMMIT),
    ],
  },
];

const TXN: SqlCase[] = [
  {
    name: 'a failed statement aborts the transaction: 25P02 until ROLLBACK; COMMIT replies ROLLBACK', primitive: 'transactions', tables: [INVOICES], sessions: ['s1'],
    ops: [
      on('s1', insertInvoice(1)),
      on('s1', BEGIN), on('s1', insertInvoice(2), 'INSERT 0 1'),
      on('s1', insertInvoice(1), 'ERROR 23505'),
      on('s1', { op: 'select', table: 'invoices', where: {} }, 'ERROR 25P02'),
      on('s1', BEGIN, 'ERROR 25P02'),
      on('s1', COMMIT, 'ROLLBACK'),
      on('s1', { op: 'select', table: 'invoices', columns: ['order_id'], where: {} }, 'SELECT 1 → order_id=1'),
    ],
  },
  {
    name: 'BEGIN inside a block, COMMIT and ROLLBACK outside one: WARNINGs', primitive: 'transactions', tables: [], sessions: ['s1'],
    ops: [
      on('s1', COMMIT, 'WARNING:  there is no transaction in progress; COMMIT'),
      on('s1', ROLLBACK, 'WARNING:  there is no transaction in progress; ROLLBACK'),
      on('s1', BEGIN, 'BEGIN'),
      on('s1', BEGIN, 'WARNING:  there is already a transaction in progress; BEGIN'),
      on('s1', COMMIT, 'COMMIT'),
    ],
  },
  {
    name: 'a failing statement releases the transaction’s locks at once, before ROLLBACK', primitive: 'transactions', tables: [ITEMS, INVOICES], sessions: ['s1', 's2', 's3'],
    ops: [
      on('s1', insertInvoice(1)),
      on('s1', BEGIN), on('s1', { op: 'update', table: 'items', set: { stock: 3 }, where: { id: 8 } }),
      on('s1', adv('pg_advisory_xact_lock', b(30)), VOID),
      on('s2', { op: 'update', table: 'items', set: { stock: 4 }, where: { id: 8 } }, WAITS),
      on('s3', adv('pg_advisory_lock', b(30)), WAITS),
      on('s1', insertInvoice(1), 'ERROR 23505'),
      on('s1', ROLLBACK),
      on('s1', { op: 'select', table: 'items', columns: ['stock'], where: { id: 8 } }, 'SELECT 1 → stock=4'),
    ],
  },
  {
    name: 'a session that ends rolls back and releases everything', primitive: 'sessions & cancel', tables: [ITEMS], sessions: ['s1', 's2', 's3'],
    ops: [
      on('s1', BEGIN), on('s1', { op: 'update', table: 'items', set: { stock: 0 }, where: { id: 7 } }),
      on('s1', adv('pg_advisory_lock', b(31)), VOID),
      on('s2', { op: 'select', table: 'items', where: { id: 7 }, lock: 'forUpdate' }, WAITS),
      on('s3', adv('pg_advisory_lock', b(31)), WAITS),
      { s: 's1', close: true },
      on('s3', { op: 'select', table: 'items', columns: ['stock'], where: { id: 7 } }, 'SELECT 1 → stock=1'),
    ],
  },
  {
    name: 'cancelling a waiting UPDATE inside a block aborts it (57014, then 25P02)', primitive: 'sessions & cancel', tables: [ITEMS], sessions: ['s1', 's2'],
    ops: [
      on('s1', BEGIN), on('s1', { op: 'update', table: 'items', set: { stock: 0 }, where: { id: 7 } }),
      on('s2', BEGIN), on('s2', { op: 'update', table: 'items', set: { stock: 3 }, where: { id: 8 } }),
      on('s2', { op: 'update', table: 'items', set: { stock: 2 }, where: { id: 7 } }, WAITS),
      { s: 's2', cancel: 'userRequest', expect: 'ERROR 57014' },
      on('s2', { op: 'select', table: 'items', where: { id: 8 } }, 'ERROR 25P02'),
      on('s1', { op: 'update', table: 'items', set: { stock: 4 }, where: { id: 8 } }, 'UPDATE 1'),
      on('s2', ROLLBACK), on('s1', COMMIT),
    ],
  },
];

const DEADLOCK = 'ERROR 40P01 deadlock detected';
const check = (s: string, expect?: string): SqlOp => (expect === undefined ? { s, deadlockCheck: true } : { s, deadlockCheck: true, expect });
const bump = (id: number): Stmt => ({ op: 'update', table: 'items', set: { stock: { column: 'stock', add: 1 } }, where: { id } });
const advTag = (key: number): string => `advisory lock [lockscope,0,${key},1]`;

/**
 * Deadlocks (issue 17): the checking backend is the one whose `deadlock_timeout` fires while the
 * cycle exists (a `deadlockCheck` step); its statement fails with 40P01 and the cycle as DETAIL,
 * its transaction is aborted at the error (xact and row locks released before any ROLLBACK,
 * session-level advisory locks kept), and the waiters it blocked proceed.
 */
const DEADLOCKS: SqlCase[] = [
  {
    // Formerly excluded ("the model has no deadlock detector"): now compared through the 40P01.
    name: 'a wait cycle of two session locks: the first waiter\'s check fails it; its session lock stays, so the other proceeds only at the unlock',
    primitive: 'deadlocks', tables: [], sessions: ['s1', 's2'],
    ops: [
      on('s1', adv('pg_advisory_lock', b(20)), VOID),
      on('s2', adv('pg_advisory_lock', b(21)), VOID),
      on('s1', adv('pg_advisory_lock', b(21)), WAITS),
      on('s2', adv('pg_advisory_lock', b(20)), WAITS),
      check('s1', `${DEADLOCK} (Process s1 waits for ExclusiveLock on ${advTag(21)}; blocked by process s2.\nProcess s2 waits for ExclusiveLock on ${advTag(20)}; blocked by process s1.)`),
      on('s1', adv('pg_advisory_unlock', b(20)), 't'),
      on('s2', adv('pg_advisory_unlock', b(20)), 't'),
      on('s2', adv('pg_advisory_unlock', b(21)), 't'),
    ],
  },
  {
    name: 'two transactions take two advisory xact locks in opposite order: the checker fails, the other proceeds before ROLLBACK',
    primitive: 'deadlocks', tables: [ITEMS], sessions: ['s1', 's2'],
    ops: [
      on('s1', BEGIN), on('s2', BEGIN),
      on('s2', adv('pg_advisory_xact_lock', b(42))),
      on('s1', adv('pg_advisory_xact_lock', b(41))),
      on('s1', adv('pg_advisory_xact_lock', b(42)), WAITS),
      on('s2', adv('pg_advisory_xact_lock', b(41)), WAITS),
      check('s2', `${DEADLOCK} (Process s2 waits for ExclusiveLock on ${advTag(41)}; blocked by process s1.\nProcess s1 waits for ExclusiveLock on ${advTag(42)}; blocked by process s2.)`),
      on('s2', { op: 'select', table: 'items', columns: ['id'], where: { id: 7 } }, 'ERROR 25P02'),
      on('s2', ROLLBACK, 'ROLLBACK'),
      on('s1', COMMIT, 'COMMIT'),
    ],
  },
  {
    name: 'the first waiter\'s timer fires before the cycle closes (no deadlock, spent); the second waiter\'s check fails it; its session locks stay',
    primitive: 'deadlocks', tables: [], sessions: ['s1', 's2'],
    ops: [
      on('s1', adv('pg_advisory_lock', b(43))),
      on('s2', adv('pg_advisory_lock', b(44))),
      on('s1', adv('pg_advisory_lock', b(44)), WAITS),
      check('s1', WAITS),
      on('s2', adv('pg_advisory_lock', b(43)), WAITS),
      check('s2', `${DEADLOCK} (Process s2 waits for ExclusiveLock on ${advTag(43)}; blocked by process s1.`),
      on('s2', adv('pg_try_advisory_lock', b(43)), 'f'),
      on('s2', adv('pg_advisory_unlock', b(44)), 't'),
      { s: 's1', stmt: { op: 'advisoryUnlockAll' }, expect: VOID },
    ],
  },
  {
    name: 'three sessions, three advisory locks in a ring: the DETAIL lists the ring from the checker',
    primitive: 'deadlocks', tables: [], sessions: ['s1', 's2', 's3'],
    ops: [
      on('s1', BEGIN), on('s2', BEGIN), on('s3', BEGIN),
      on('s1', adv('pg_advisory_xact_lock', b(45))),
      on('s2', adv('pg_advisory_xact_lock', b(46))),
      on('s3', adv('pg_advisory_xact_lock', b(47))),
      on('s1', adv('pg_advisory_xact_lock', b(46)), WAITS),
      on('s2', adv('pg_advisory_xact_lock', b(47)), WAITS),
      on('s3', adv('pg_advisory_xact_lock', b(45)), WAITS),
      check('s1', `${DEADLOCK} (Process s1 waits for ExclusiveLock on ${advTag(46)}; blocked by process s2.\nProcess s2 waits for ExclusiveLock on ${advTag(47)}; blocked by process s3.\nProcess s3 waits for ExclusiveLock on ${advTag(45)}; blocked by process s1.)`),
      on('s1', ROLLBACK), on('s3', COMMIT), on('s2', COMMIT),
    ],
  },
  {
    name: 'shared holders both upgrading to exclusive: the second fails at once (no deadlock_timeout)',
    primitive: 'deadlocks', tables: [], sessions: ['s1', 's2'],
    ops: [
      on('s1', adv('pg_advisory_lock_shared', b(48))),
      on('s2', adv('pg_advisory_lock_shared', b(48))),
      on('s2', adv('pg_advisory_lock', b(48)), WAITS),
      on('s1', adv('pg_advisory_lock', b(48)), `${DEADLOCK} (Process s1 waits for ExclusiveLock on ${advTag(48)}; blocked by process s2.\nProcess s2 waits for ExclusiveLock on ${advTag(48)}; blocked by process s1.)`),
      on('s1', adv('pg_advisory_unlock_shared', b(48)), 't'),
      on('s2', adv('pg_advisory_unlock', b(48)), 't'),
      on('s2', adv('pg_advisory_unlock_shared', b(48)), 't'),
    ],
  },
  {
    name: 'two UPDATEs of two rows in opposite order: the earlier waiter checks first and fails; the other updates',
    primitive: 'deadlocks', tables: [ITEMS], sessions: ['s1', 's2'],
    ops: [
      on('s1', BEGIN), on('s2', BEGIN),
      on('s1', bump(7)), on('s2', bump(8)),
      on('s1', bump(8), WAITS),
      on('s2', bump(7), WAITS),
      check('s1', `${DEADLOCK} (Process s1 waits for ShareLock on transaction `),
      on('s1', ROLLBACK), on('s2', COMMIT),
    ],
  },
  {
    name: 'DELETE and UPDATE in opposite order (row locks, a key-changing lock mode)',
    primitive: 'deadlocks', tables: [ITEMS], sessions: ['s1', 's2'],
    ops: [
      on('s1', BEGIN), on('s2', BEGIN),
      on('s1', { op: 'delete', table: 'items', where: { id: 7 } }),
      on('s2', bump(8)),
      on('s1', { op: 'select', table: 'items', columns: ['id'], where: { id: 8 }, lock: 'forUpdate' }, WAITS),
      on('s2', { op: 'delete', table: 'items', where: { id: 7 } }, WAITS),
      check('s2', DEADLOCK),
      on('s1', COMMIT), on('s2', ROLLBACK),
    ],
  },
  {
    name: 'two inserts of two keys in opposite order (unique-insert waits on transaction ids)',
    primitive: 'deadlocks', tables: [INVOICES], sessions: ['s1', 's2'],
    ops: [
      on('s1', BEGIN), on('s2', BEGIN),
      on('s1', insertInvoice(1)), on('s2', insertInvoice(2)),
      on('s1', insertInvoice(2), WAITS),
      on('s2', insertInvoice(1), WAITS),
      check('s2', `${DEADLOCK} (Process s2 waits for ShareLock on transaction `),
      on('s1', COMMIT, 'COMMIT'),
      on('s2', ROLLBACK),
    ],
  },
  {
    name: 'key-changing UPDATEs onto each other\'s uncommitted keys (transaction-id waits of UPDATE)',
    primitive: 'deadlocks', tables: [INVOICES], sessions: ['s1', 's2'],
    ops: [
      on('s1', BEGIN), on('s2', BEGIN),
      on('s1', insertInvoice(5)), on('s2', insertInvoice(6)),
      on('s1', setOrder(5, 6), WAITS),
      on('s2', setOrder(6, 5), WAITS),
      check('s1', DEADLOCK),
      on('s2', COMMIT, 'COMMIT'),
      on('s1', ROLLBACK),
    ],
  },
  {
    name: 'three sessions through a row lock, a tuple-lock queue and a unique insert (verified DETAIL shape)',
    primitive: 'deadlocks', tables: [ITEMS, INVOICES], sessions: ['s1', 's2', 's3'],
    ops: [
      on('s1', BEGIN), on('s2', BEGIN), on('s3', BEGIN),
      on('s1', bump(7)),
      on('s3', insertInvoice(9)),
      on('s2', { op: 'select', table: 'items', columns: ['id'], where: { id: 7 }, lock: 'forUpdate' }, WAITS),
      on('s3', bump(7), WAITS),
      on('s1', insertInvoice(9), WAITS),
      check('s3', `${DEADLOCK} (Process s3 waits for ExclusiveLock on tuple (id=7) of relation items of database lockscope; blocked by process s2.\nProcess s2 waits for ShareLock on transaction `),
      on('s1', ROLLBACK),
      on('s2', COMMIT), on('s3', ROLLBACK),
    ],
  },
  {
    name: 'a cycle through a waiter queued ahead (soft): the queue is rearranged, the shared request granted, nobody fails',
    primitive: 'deadlocks', tables: [], sessions: ['s1', 's2', 's3'],
    ops: [
      on('s1', adv('pg_advisory_lock_shared', b(49))),
      on('s3', adv('pg_advisory_lock', b(50))),
      on('s2', adv('pg_advisory_lock', b(49)), WAITS),
      on('s3', adv('pg_advisory_lock_shared', b(49)), WAITS),
      on('s1', adv('pg_advisory_lock', b(50)), WAITS),
      check('s1', WAITS),
      on('s3', { op: 'advisoryUnlockAll' }, VOID),
      on('s1', { op: 'advisoryUnlockAll' }, VOID),
      on('s2', { op: 'advisoryUnlockAll' }, VOID),
    ],
  },
];

// ---- isolation levels and 40001 (issue 10; ../shared/semantics.md "Server-side timeouts and isolation") ----

/** A table with no unique key on order_id: a check-then-insert race leaves SERIALIZABLE's read/write check alone to refuse it. */
export const BILLS: TableSpec = {
  name: 'bills',
  columns: [{ name: 'id', type: 'bigint', serial: true }, { name: 'order_id', type: 'bigint' }, { name: 'amount', type: 'bigint' }],
  primaryKey: ['id'],
};
const RR: Stmt = { op: 'begin', isolation: 'repeatable read' };
const SER: Stmt = { op: 'begin', isolation: 'serializable' };
const readBalance: Stmt = { op: 'select', table: 'accounts', columns: ['balance'], where: { id: 1 } };
const setBalance = (balance: number): Stmt => ({ op: 'update', table: 'accounts', set: { balance }, where: { id: 1 } });
const readBill = (order: number): Stmt => ({ op: 'select', table: 'bills', where: { order_id: order } });
const insertBill = (order: number): Stmt => ({ op: 'insert', table: 'bills', values: { order_id: order, amount: 100 } });
const readInvoice = (order: number): Stmt => ({ op: 'select', table: 'invoices', columns: ['amount'], where: { order_id: order } });
const CONCURRENT_UPDATE = 'ERROR 40001 could not serialize access due to concurrent update';
const RW = (during: string): string => `ERROR 40001 could not serialize access due to read/write dependencies among transactions (Reason code: Canceled on identification as a pivot, during ${during}.)`;
const isoCase = (name: string, tables: TableSpec[], ops: SqlOp[]): SqlCase => ({ name, primitive: 'isolation (40001)', tables, sessions: ['s1', 's2'], ops });

/** Both SERIALIZABLE sessions read order 42 (none), both insert it: a read/write cycle nobody has committed yet. */
const bothReadBothInsert: SqlOp[] = [
  on('s1', SER, 'BEGIN'), on('s2', SER, 'BEGIN'),
  on('s1', readBill(42), 'SELECT 0'), on('s2', readBill(42), 'SELECT 0'),
  on('s1', insertBill(42), 'INSERT 0 1'), on('s2', insertBill(42), 'INSERT 0 1'),
  on('s1', COMMIT, 'COMMIT'),
];

const ISOLATION: SqlCase[] = [
  isoCase('REPEATABLE READ: an UPDATE waits for a concurrent updater, which commits: 40001; the block is aborted (25P02)', [ACCOUNTS], [
    on('s1', RR, 'BEGIN'), on('s1', readBalance, 'SELECT 1'),
    on('s2', RR, 'BEGIN'), on('s2', readBalance, 'SELECT 1'),
    on('s1', setBalance(90), 'UPDATE 1'),
    on('s2', setBalance(80), WAITS),
    on('s1', COMMIT, 'COMMIT'),
    on('s2', readBalance, 'ERROR 25P02'),
    on('s2', COMMIT, 'ROLLBACK'),
  ]),
  isoCase('REPEATABLE READ: reads keep the snapshot after a concurrent commit; SELECT … FOR UPDATE of that row: 40001', [ACCOUNTS], [
    on('s1', RR, 'BEGIN'), on('s2', RR, 'BEGIN'),
    on('s2', readBalance, 'SELECT 1 → balance=100'),
    on('s1', setBalance(90), 'UPDATE 1'), on('s1', COMMIT, 'COMMIT'),
    on('s2', readBalance, 'SELECT 1 → balance=100'),
    on('s2', { ...readBalance, lock: 'forUpdate' } as Stmt, CONCURRENT_UPDATE),
    on('s2', ROLLBACK, 'ROLLBACK'),
  ]),
  isoCase('REPEATABLE READ: the snapshot is taken by the first statement, not by BEGIN', [ACCOUNTS], [
    on('s2', RR, 'BEGIN'),
    on('s1', setBalance(90), 'UPDATE 1'),
    on('s2', readBalance, 'SELECT 1 → balance=90'),
    on('s2', setBalance(80), 'UPDATE 1'),
    on('s2', COMMIT, 'COMMIT'),
  ]),
  isoCase('REPEATABLE READ: ON CONFLICT DO NOTHING meets a committed row its snapshot cannot see: 40001', [INVOICES], [
    on('s1', RR, 'BEGIN'), on('s2', RR, 'BEGIN'),
    on('s1', readInvoice(42), 'SELECT 0'), on('s2', readInvoice(42), 'SELECT 0'),
    on('s1', insertInvoice(42), 'INSERT 0 1'), on('s1', COMMIT, 'COMMIT'),
    on('s2', insertInvoice(42, { onConflictDoNothing: true }), CONCURRENT_UPDATE),
    on('s2', COMMIT, 'ROLLBACK'),
  ]),
  isoCase('SERIALIZABLE read-modify-write: the concurrent-update check answers first (40001 concurrent update)', [ACCOUNTS], [
    on('s1', SER, 'BEGIN'), on('s2', SER, 'BEGIN'),
    on('s1', readBalance, 'SELECT 1'), on('s2', readBalance, 'SELECT 1'),
    on('s1', setBalance(90), 'UPDATE 1'), on('s1', COMMIT, 'COMMIT'),
    on('s2', setBalance(80), CONCURRENT_UPDATE),
  ]),
  isoCase('SERIALIZABLE check-then-insert without a unique key: both insert; the first COMMIT wins, the second fails at COMMIT', [BILLS], [
    ...bothReadBothInsert,
    on('s2', COMMIT, RW('commit attempt')),
  ]),
  isoCase('SERIALIZABLE check-then-insert: the later COMMIT fails whichever session commits first', [BILLS], [
    ...bothReadBothInsert.slice(0, -1),
    on('s2', COMMIT, 'COMMIT'),
    on('s1', COMMIT, RW('commit attempt')),
  ]),
  isoCase('SERIALIZABLE: a doomed transaction fails at its next read of any table (conflict out checking)', [BILLS, ACCOUNTS], [
    ...bothReadBothInsert,
    on('s2', readBalance, RW('conflict out checking')),
    on('s2', COMMIT, 'ROLLBACK'),
  ]),
  isoCase('SERIALIZABLE: a doomed transaction fails at its next write (conflict in checking)', [BILLS], [
    ...bothReadBothInsert,
    on('s2', insertBill(43), RW('conflict in checking')),
  ]),
  isoCase('SERIALIZABLE: an insert after the other side committed fails at once (during write)', [BILLS], [
    on('s1', SER, 'BEGIN'), on('s2', SER, 'BEGIN'),
    on('s1', readBill(42), 'SELECT 0'), on('s2', readBill(42), 'SELECT 0'),
    on('s1', insertBill(42), 'INSERT 0 1'), on('s1', COMMIT, 'COMMIT'),
    on('s2', insertBill(42), RW('write')),
    on('s2', COMMIT, 'ROLLBACK'),
  ]),
  isoCase('SERIALIZABLE with a unique key: the waiting insert gets 40001, not 23505, when the other commits', [INVOICES], [
    on('s1', SER, 'BEGIN'), on('s2', SER, 'BEGIN'),
    on('s1', readInvoice(42), 'SELECT 0'), on('s2', readInvoice(42), 'SELECT 0'),
    on('s1', insertInvoice(42), 'INSERT 0 1'),
    on('s2', insertInvoice(42), WAITS),
    on('s1', COMMIT, 'COMMIT'),
    on('s2', COMMIT, 'ROLLBACK'),
  ]),
  isoCase('SERIALIZABLE with a unique key, the second session never read: 23505', [INVOICES], [
    on('s1', SER, 'BEGIN'), on('s2', SER, 'BEGIN'),
    on('s1', readInvoice(42), 'SELECT 0'),
    on('s1', insertInvoice(42), 'INSERT 0 1'), on('s1', COMMIT, 'COMMIT'),
    on('s2', insertInvoice(42), 'ERROR 23505'),
  ]),
  isoCase('SERIALIZABLE: two different keys of one small table still conflict (one index page): 40001', [INVOICES], [
    on('s1', SER, 'BEGIN'), on('s2', SER, 'BEGIN'),
    on('s1', readInvoice(1), 'SELECT 0'), on('s2', readInvoice(2), 'SELECT 0'),
    on('s1', insertInvoice(1, { onConflictDoNothing: true }), 'INSERT 0 1'), on('s1', COMMIT, 'COMMIT'),
    on('s2', insertInvoice(2, { onConflictDoNothing: true }), RW('write')),
  ]),
];

// ---- server timeouts (issue 10) ----

const TIMEOUTS: SqlCase[] = [
  {
    name: 'statement_timeout cancels a waiting pg_advisory_lock with 57014; the block is aborted (25P02), the holder keeps its lock',
    primitive: 'server timeouts', tables: [ACCOUNTS], sessions: ['s1', 's2'],
    sessionSetup: { s2: ["SET statement_timeout = '300ms'"] },
    ops: [
      on('s1', adv('pg_advisory_lock', b(7)), VOID),
      on('s2', BEGIN, 'BEGIN'),
      on('s2', adv('pg_advisory_lock', b(7)), WAITS),
      { s: 's2', cancel: 'statementTimeout', expect: 'ERROR 57014 canceling statement due to statement timeout' },
      on('s2', readBalance, 'ERROR 25P02'),
      on('s2', COMMIT, 'ROLLBACK'),
      on('s1', adv('pg_advisory_unlock', b(7)), 't'),
    ],
  },
  {
    name: 'statement_timeout cancels an UPDATE waiting for a row lock; the holder commits undisturbed',
    primitive: 'server timeouts', tables: [ACCOUNTS], sessions: ['s1', 's2'],
    sessionSetup: { s2: ["SET statement_timeout = '300ms'"] },
    ops: [
      on('s1', BEGIN, 'BEGIN'),
      on('s1', setBalance(90), 'UPDATE 1'),
      on('s2', setBalance(80), WAITS),
      { s: 's2', cancel: 'statementTimeout', expect: 'ERROR 57014 canceling statement due to statement timeout' },
      on('s1', COMMIT, 'COMMIT'),
      on('s2', readBalance, 'SELECT 1 → balance=90'),
    ],
  },
  {
    name: 'idle_in_transaction_session_timeout ends the session (FATAL 25P03): its row lock and its session advisory lock go, the waiters proceed',
    primitive: 'server timeouts', tables: [ACCOUNTS], sessions: ['s1', 's2', 's3'],
    sessionSetup: { s1: ["SET idle_in_transaction_session_timeout = '1500ms'"] },
    ops: [
      on('s1', adv('pg_advisory_lock', b(5)), VOID),
      on('s1', BEGIN, 'BEGIN'),
      on('s1', { ...readBalance, lock: 'forUpdate' } as Stmt, 'SELECT 1'),
      on('s2', setBalance(80), WAITS),
      on('s3', adv('pg_advisory_lock', b(5)), WAITS),
      { s: 's1', idleTimeout: true, expect: 'FATAL 25P03 terminating connection due to idle-in-transaction timeout' },
      on('s3', adv('pg_advisory_unlock', b(5)), 't'),
    ],
  },
];

// ---- connection pools, app side (issue 10, element 3) ----

/**
 * A helper on a second connection of the same client (scenario version 2, a step's `helper`):
 * `c1` is the caller's connection, inside its transaction; `c2` the helper's, in autocommit.
 * PostgreSQL cannot tell they belong to one client: it sees `c2` waiting for `c1`'s lock and `c1`
 * waiting for nothing, so the deadlock check (`deadlockCheck`) finds no cycle and the helper waits
 * on — until the caller's transaction ends, or `statement_timeout` cancels the helper (57014).
 * In the application the caller waits for its helper: the hang the model reports as a wait cycle.
 */
const appPoolCase = (name: string, tables: TableSpec[], ops: SqlOp[], extra: Partial<SqlCase> = {}): SqlCase => ({
  name, primitive: 'connection pools (app side)', tables, sessions: ['c1', 'c2'], ops, ...extra,
});

const APP_POOLS: SqlCase[] = [
  appPoolCase('a helper\'s UPDATE waits for its caller\'s row lock: the deadlock check finds no cycle (no 40P01); it proceeds only when the caller\'s transaction ends', [ACCOUNTS], [
    on('c1', BEGIN, 'BEGIN'),
    on('c1', { ...readBalance, lock: 'forUpdate' } as Stmt, 'SELECT 1 → balance=100'),
    on('c2', setBalance(70), WAITS),
    check('c2', WAITS),
    on('c1', ROLLBACK, 'ROLLBACK'),
    on('c2', readBalance, 'SELECT 1 → balance=70'),
  ]),
  appPoolCase('a helper\'s UPDATE waiting for its caller\'s row lock is ended only by statement_timeout (57014); the caller\'s transaction goes on and commits', [ACCOUNTS], [
    on('c1', BEGIN, 'BEGIN'),
    on('c1', { ...readBalance, lock: 'forUpdate' } as Stmt, 'SELECT 1 → balance=100'),
    on('c2', setBalance(70), WAITS),
    { s: 'c2', cancel: 'statementTimeout', expect: 'ERROR 57014 canceling statement due to statement timeout' },
    on('c1', setBalance(70), 'UPDATE 1'),
    on('c1', COMMIT, 'COMMIT'),
    on('c2', readBalance, 'SELECT 1 → balance=70'),
  ], { sessionSetup: { c2: ["SET statement_timeout = '300ms'"] } }),
  appPoolCase('a helper\'s pg_advisory_xact_lock waits for the lock its caller\'s transaction holds: no cycle; it gets the lock at the caller\'s COMMIT', [], [
    on('c1', BEGIN, 'BEGIN'),
    on('c1', adv('pg_advisory_xact_lock', b(9)), VOID),
    on('c2', adv('pg_advisory_xact_lock', b(9)), WAITS),
    check('c2', WAITS),
    on('c1', COMMIT, 'COMMIT'),
    on('c2', adv('pg_try_advisory_lock', b(9)), 't'),
    on('c2', adv('pg_advisory_unlock', b(9)), 't'),
  ]),
  appPoolCase('a helper inserts the key its caller\'s open transaction inserted: it waits, no cycle, then 23505 at the caller\'s COMMIT', [INVOICES], [
    on('c1', BEGIN, 'BEGIN'),
    on('c1', insertInvoice(42), 'INSERT 0 1 → id=1'),
    on('c2', insertInvoice(42), WAITS),
    check('c2', WAITS),
    on('c1', COMMIT, 'COMMIT'),
    on('c2', { op: 'select', table: 'invoices', columns: ['order_id'], where: { order_id: 42 } }, 'SELECT 1'),
  ]),
];

/** A fenced write of `body` with `token`: `… WHERE id = 7 AND fence < token` unless `conditional` is false. */
const fencedWrite = (body: string, token: number, conditional = true): Stmt => ({
  op: 'update', table: 'documents', set: { body, fence: token }, where: { id: 7 }, ...(conditional ? { whereBelow: { fence: token } } : {}),
});
const NEXTVAL: Stmt = { op: 'nextval', seq: 'fence_seq' };
const fenceCase = (name: string, sessions: string[], ops: SqlOp[]): SqlCase => ({
  name, primitive: 'fencing: nextval and fenced UPDATE', tables: [DOCUMENTS], sequences: { fence_seq: 33 }, sessions, ops,
});

/** semantics.md, "Fencing beyond a Redis counter": the database as token source and as the fenced resource. */
const FENCING: SqlCase[] = [
  fenceCase('conditional UPDATE: a higher token updates the row; a lower or equal one updates 0 rows (a stale holder)', ['s1', 's2'], [
    on('s2', fencedWrite('B', 34), 'UPDATE 1'),
    on('s1', fencedWrite('A', 33), 'UPDATE 0'),
    on('s1', fencedWrite('A', 34), 'UPDATE 0'),
    on('s1', { op: 'select', table: 'documents', where: { id: 7 } }, 'SELECT 1'),
  ]),
  fenceCase('unconditional UPDATE: the stale holder\'s late write overwrites the newer row', ['s1', 's2'], [
    on('s2', fencedWrite('B', 34), 'UPDATE 1'),
    on('s1', fencedWrite('A', 33, false), 'UPDATE 1'),
    on('s2', { op: 'select', table: 'documents', where: { id: 7 } }, 'SELECT 1'),
  ]),
  fenceCase('conditional UPDATE waits for the newer holder\'s open transaction, then re-checks the fence on its committed row: UPDATE 0', ['s1', 's2'], [
    on('s2', BEGIN, 'BEGIN'),
    on('s2', fencedWrite('B', 34), 'UPDATE 1'),
    on('s1', fencedWrite('A', 33), WAITS),
    on('s2', COMMIT, 'COMMIT'),
    on('s1', { op: 'select', table: 'documents', where: { id: 7 } }, 'SELECT 1'),
  ]),
  fenceCase('nextval is not transactional: a value taken in a rolled-back transaction is not handed out again', ['s1', 's2'], [
    on('s1', BEGIN, 'BEGIN'),
    on('s1', NEXTVAL, 'SELECT 1'),
    on('s1', ROLLBACK, 'ROLLBACK'),
    on('s2', NEXTVAL, 'SELECT 1'),
    on('s1', NEXTVAL, 'SELECT 1'),
  ]),
  fenceCase('nextval in two open transactions: each gets its own value at once, neither waits', ['s1', 's2'], [
    on('s1', BEGIN, 'BEGIN'),
    on('s2', BEGIN, 'BEGIN'),
    on('s1', NEXTVAL, 'SELECT 1'),
    on('s2', NEXTVAL, 'SELECT 1'),
    on('s2', COMMIT, 'COMMIT'),
    on('s1', ROLLBACK, 'ROLLBACK'),
  ]),
  fenceCase('nextval of a sequence that does not exist: 42P01, and the transaction is aborted', ['s1'], [
    on('s1', BEGIN, 'BEGIN'),
    on('s1', { op: 'nextval', seq: 'no_such_seq' }, 'ERROR 42P01'),
    on('s1', NEXTVAL, 'ERROR 25P02'),
    on('s1', ROLLBACK, 'ROLLBACK'),
  ]),
];


export const SQL_CASES: readonly SqlCase[] = [...ADVISORY, ...UNIQUE, ...ROWS, ...TXN, ...DEADLOCKS, ...ISOLATION, ...TIMEOUTS, ...APP_POOLS, ...FENCING];
