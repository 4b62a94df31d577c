/** Names, descriptions and link contents are rendered as text: nothing in the UI injects raw HTML. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : /\.(ts|tsx)$/.test(f) && !/\.test\.tsx?$/.test(f) ? [p] : [];
  });
}

it('no dangerouslySetInnerHTML, innerHTML, outerHTML, insertAdjacentHTML, document.write or eval in src/ui and src/share', () => {
  const offenders = [...files('src/ui'), ...files('src/share')].filter((f) => /dangerouslySetInnerHTML|\.innerHTML\s*=|\.outerHTML\s*=|insertAdjacentHTML|document\.write|\beval\(|new Function\(/.test(readFileSync(f, 'utf8')));
  expect(offenders).toEqual([]);
});
