/** The class of a reply, which chooses its narration (replyClass.ts). */
import { etcdClassOf, redisClassOf, redisHandler, sqlClassOf, sqlHandler } from './replyClass';
import { ETCD_LEASE_NOT_FOUND, ETCD_TIMEOUT_MESSAGE } from '../resources/lockService';
import { takeReply } from '../engine/world';
import { REDIS_TIMEOUT_MESSAGE } from '../resources/redisTypes';
import type { DbReply, Stmt } from '../resources/sqlTypes';

const ok = (tag: string, extra: Partial<Extract<DbReply, { status: 'ok' }>> = {}): Extract<DbReply, { status: 'ok' }> => ({ status: 'ok', tag, rows: [], ...extra });
const update: Stmt = { op: 'update', table: 'jobs', set: { status: 'done' }, where: { job_key: 'k' } };

describe('reply classes', () => {
  it('SQL: rows touched → ok; none touched → none; WARNING or COMMIT answered ROLLBACK → refused; SQLSTATE → error', () => {
    expect(sqlClassOf(update, ok('UPDATE 1'))).toBe('ok');
    expect(sqlClassOf(update, ok('UPDATE 0'))).toBe('none');
    expect(sqlClassOf({ op: 'insert', table: 'jobs', values: {} }, ok('INSERT 0 0'))).toBe('none');
    expect(sqlClassOf({ op: 'insert', table: 'jobs', values: {} }, ok('INSERT 0 1'))).toBe('ok');
    expect(sqlClassOf({ op: 'select', table: 'jobs', where: {} }, ok('SELECT 0'))).toBe('none');
    expect(sqlClassOf({ op: 'select', table: 'jobs', where: {} }, ok('SELECT 10'))).toBe('ok');
    expect(sqlClassOf({ op: 'delete', table: 'jobs', where: {} } as Stmt, ok('DELETE 0'))).toBe('none');
    expect(sqlClassOf({ op: 'commit' }, ok('ROLLBACK'))).toBe('refused');
    expect(sqlClassOf({ op: 'rollback' }, ok('ROLLBACK'))).toBe('ok');
    expect(sqlClassOf({ op: 'advisory', fn: 'pg_advisory_unlock', key: { kind: 'bigint', key: 1 } }, ok('SELECT 1', { warning: 'you don\'t own a lock of type ExclusiveLock' }))).toBe('refused');
    expect(sqlClassOf(update, { status: 'error', error: { code: '23505', message: 'duplicate key' } } as DbReply as never)).toBe('error');
  });

  it('Redis: the world\'s timeout reply → timeout; other errors → error; (nil) and 0 → none; the rest → ok', () => {
    expect(redisClassOf({ kind: 'error', message: REDIS_TIMEOUT_MESSAGE })).toBe('timeout');
    expect(redisClassOf({ kind: 'error', message: 'ERR wrong type' })).toBe('error');
    expect(redisClassOf({ kind: 'nil' })).toBe('none');
    expect(redisClassOf({ kind: 'int', value: 0 })).toBe('none');
    expect(redisClassOf({ kind: 'int', value: 1 })).toBe('ok');
    expect(redisClassOf({ kind: 'int', value: 34 })).toBe('ok');
    expect(redisClassOf({ kind: 'ok' })).toBe('ok');
  });

  it('etcd: the cut-off reply → timeout; "lease not found" → none; other errors → error; a failed compare, del 0 and an empty get → none; the rest → ok', () => {
    const kv = { key: 'locks/export', value: 'e01d', createRevision: 33, modRevision: 33, version: 1, lease: '694d71ddacfda227' };
    expect(etcdClassOf({ op: 'error', of: 'txnAcquire', message: ETCD_TIMEOUT_MESSAGE })).toBe('timeout');
    expect(etcdClassOf({ op: 'error', of: 'leaseKeepAlive', message: ETCD_LEASE_NOT_FOUND })).toBe('none');
    expect(etcdClassOf({ op: 'error', of: 'leaseGrant', message: 'etcdserver: too many requests' })).toBe('error');
    expect(etcdClassOf({ op: 'txnAcquire', revision: 34, succeeded: false, kv })).toBe('none');
    expect(etcdClassOf({ op: 'txnAcquire', revision: 34, succeeded: true, kv: null })).toBe('ok');
    expect(etcdClassOf({ op: 'del', revision: 34, deleted: 0 })).toBe('none');
    expect(etcdClassOf({ op: 'del', revision: 35, deleted: 1 })).toBe('ok');
    expect(etcdClassOf({ op: 'get', revision: 34, kv: null })).toBe('none');
    expect(etcdClassOf({ op: 'get', revision: 34, kv })).toBe('ok');
    expect(etcdClassOf({ op: 'leaseRevoke', revision: 35, id: '694d71ddacfda227', deleted: [] })).toBe('ok');
  });

  it('a try-lock answered f is none (the lock is taken); t is ok; a blocking lock\'s reply is ok', () => {
    const tryLock: Stmt = { op: 'advisory', fn: 'pg_try_advisory_lock', key: { kind: 'bigint', key: 42 } };
    expect(sqlClassOf(tryLock, ok('SELECT 1', { rows: [{ pg_try_advisory_lock: 'f' }] }))).toBe('none');
    expect(sqlClassOf(tryLock, ok('SELECT 1', { rows: [{ pg_try_advisory_lock: 't' }] }))).toBe('ok');
    expect(sqlClassOf({ op: 'advisory', fn: 'pg_advisory_lock', key: { kind: 'bigint', key: 42 } }, ok('SELECT 1', { rows: [{ pg_advisory_lock: '' }] }))).toBe('ok');
  });

  it('each class is worded by its own case, after believe has seen the class', () => {
    const seen: string[] = [];
    const h = sqlHandler(update, { believe: (_r, c) => void seen.push(c), ok: () => 'ok', none: () => 'none', refused: () => 'refused', error: (r) => `error ${r.error.code}` });
    expect([takeReply(h, ok('UPDATE 1')), takeReply(h, ok('UPDATE 0')), takeReply(h, { status: 'error', error: { code: '40001', message: 'x' } } as never)]).toEqual(['ok', 'none', 'error 40001']);
    expect(seen).toEqual(['ok', 'none', 'error']);
    expect(() => takeReply(h, { status: 'waits', on: 'x' })).toThrow(/waiting reply/);
    const r = redisHandler({ ok: () => 'ok', none: () => 'none', error: (e) => `error ${e.message}`, timeout: () => 'timeout' });
    expect([takeReply(r, { kind: 'ok' }), takeReply(r, { kind: 'nil' }), takeReply(r, { kind: 'error', message: 'E' }), takeReply(r, { kind: 'error', message: REDIS_TIMEOUT_MESSAGE })]).toEqual(['ok', 'none', 'error E', 'timeout']);
  });
});
