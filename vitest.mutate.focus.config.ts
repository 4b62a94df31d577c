/**
 * Vitest for a focused mutation run (stryker.focus.config.mjs): only the test files named in
 * MUTATE_TESTS (comma-separated), so that a shared, loaded machine can measure one source file
 * against its own tests in minutes. A focused score is a lower bound of the full one: a mutant
 * that only another test file (a catalogue or golden-hash test) would kill counts as survived.
 */
import { defineConfig } from 'vitest/config';
import base from './vitest.mutate.config';

const files = (process.env.MUTATE_TESTS ?? '').split(',').map((f) => f.trim()).filter((f) => f !== '');
if (files.length === 0) throw new Error('MUTATE_TESTS must name the test files of a focused mutation run (comma-separated paths)');

export default defineConfig({ ...base, test: { ...base.test, include: files } });
