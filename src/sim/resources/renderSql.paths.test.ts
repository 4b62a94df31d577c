// Text forms renderSql.test.ts leaves open: a reserved word from each part of the keyword list
// (each rejected bare by PostgreSQL 15: `create temp table t (concurrently bigint)` → syntax error),
// SET of a literal, a fenced UPDATE with and without equalities, CREATE SEQUENCE, and the FATAL of
// 25P03. Each SQL text below was run on PostgreSQL 15 (an UPDATE of a table named "concurrently"
// with `"with" < 5 AND fence < 34`; `CREATE SEQUENCE … START 33` whose first nextval is 33).
import { describe, expect, it } from 'vitest';
import { quoteIdent, renderReply, renderSequenceSetup, renderSql } from './renderSql';

describe('reserved words are double-quoted (PostgreSQL 15: syntax error when bare)', () => {
  it.each(['all', 'column', 'concurrently', 'current_role', 'current_timestamp', 'freeze', 'with'])('%s', (word) => {
    expect(quoteIdent(word)).toBe(`"${word}"`);
  });
});

describe('UPDATE text', () => {
  it('SET to a literal writes the literal', () => {
    expect(renderSql({ op: 'update', table: 'jobs', set: { status: 'done', n: 3, note: null }, where: { id: 1 } })).toBe("UPDATE jobs SET status = 'done', n = 3, note = NULL WHERE id = 1");
  });

  it('fence bounds alone make the WHERE; after equalities they are joined with AND', () => {
    expect(renderSql({ op: 'update', table: 'concurrently', set: { with: 1 }, where: {}, whereBelow: { fence: 34, with: 5 } })).toBe('UPDATE "concurrently" SET "with" = 1 WHERE fence < 34 AND "with" < 5');
    expect(renderSql({ op: 'update', table: 'documents', set: { body: 'B', fence: 34 }, where: { id: 7 }, whereBelow: { fence: 34, version: 3 } })).toBe(
      "UPDATE documents SET body = 'B', fence = 34 WHERE id = 7 AND fence < 34 AND version < 3",
    );
  });
});

describe('other text forms', () => {
  it('CREATE SEQUENCE with its first value', () => {
    expect(renderSequenceSetup('fence_seq', 33)).toBe('CREATE SEQUENCE fence_seq START 33');
    expect(renderSequenceSetup('Fence', 1)).toBe('CREATE SEQUENCE "Fence" START 1');
  });

  it('25P03 ends the session, so it reads FATAL; other errors read ERROR, with no detail part when there is none', () => {
    expect(renderReply({ status: 'error', error: { code: '25P03', message: 'terminating connection due to idle-in-transaction timeout' } })).toBe(
      'FATAL 25P03 terminating connection due to idle-in-transaction timeout',
    );
    expect(renderReply({ status: 'error', error: { code: '57014', message: 'canceling statement due to statement timeout' } })).toBe('ERROR 57014 canceling statement due to statement timeout');
  });
});
