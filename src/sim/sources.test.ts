/** Comments cite sources by name (a PostgreSQL or Redis doc section, the project's docs), never a path on some machine. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : /\.ts$/.test(name) ? [path] : [];
  });
}

describe('src/sim sources', () => {
  it('cite no absolute path of a machine', () => {
    const offenders = files(__dirname).filter((f) => !f.endsWith('sources.test.ts')).flatMap((f) => {
      const hits = readFileSync(f, 'utf8').match(/(^|[\s(`'"])\/(work|home|tmp|Users)\/[\w./-]+/g) ?? [];
      return hits.map((h) => `${f.slice(__dirname.length + 1)}: ${h.trim()}`);
    });
    expect(offenders).toEqual([]);
  });
});
