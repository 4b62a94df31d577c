// validateStmt's programming-error checks that other tests leave open: SET of a literal is
// accepted, a fencing `whereBelow` must name a known bigint column and an integer, and DELETE is
// checked like the other statements. These are scenario bugs (Error), not SQL replies.
import { describe, expect, it } from 'vitest';
import type { Stmt, TableSpec } from './sqlTypes';
import { validateStmt } from './stmtValidate';
import { createTableState } from './tableStore';

const documents: TableSpec = {
  name: 'documents',
  columns: [{ name: 'id', type: 'bigint' }, { name: 'body', type: 'text' }, { name: 'fence', type: 'bigint' }],
  primaryKey: ['id'],
};
const tables = [createTableState(documents)];
const validate = (stmt: Stmt): void => validateStmt(tables, stmt);
const fenced = (whereBelow: Record<string, number>): Stmt => ({ op: 'update', table: 'documents', set: { body: 'B', fence: 34 }, where: { id: 7 }, whereBelow });

describe('UPDATE', () => {
  it('SET of literals and a fence bound on a bigint column are accepted', () => {
    expect(() => validate(fenced({ fence: 34 }))).not.toThrow();
    expect(() => validate({ op: 'update', table: 'documents', set: { body: null }, where: { id: 7 } })).not.toThrow();
  });

  it('a fence bound on a text column is refused', () => {
    expect(() => validate(fenced({ body: 3 }))).toThrow('WHERE body < 3 needs a bigint column and an integer');
  });

  it('a fence bound that is not an integer is refused', () => {
    expect(() => validate(fenced({ fence: 1.5 }))).toThrow('WHERE fence < 1.5 needs a bigint column and an integer');
  });

  it('a fence bound on an unknown column is refused as an unknown column, before its type is looked at', () => {
    expect(() => validate(fenced({ version: 3 }))).toThrow('table documents has no column version');
  });
});

describe('DELETE', () => {
  it('is checked too: an unknown table, an unknown column or a value that does not fit', () => {
    expect(() => validate({ op: 'delete', table: 'nope', where: {} })).toThrow('unknown table nope');
    expect(() => validate({ op: 'delete', table: 'documents', where: { version: 1 } })).toThrow('table documents has no column version');
    expect(() => validate({ op: 'delete', table: 'documents', where: { id: 'seven' } })).toThrow();
    expect(() => validate({ op: 'delete', table: 'documents', where: { id: 7 } })).not.toThrow();
  });
});
