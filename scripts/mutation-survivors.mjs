// Compares the survivors of the last `npm run mutate` (reports/mutation/mutation.json) with the
// equivalent mutants listed in docs/mutation-survivors.md, so a run is judged by what changed:
// prints the score, every survivor or no-coverage mutant not listed there (tests to write, or a
// new equivalent to list with its reason), and every listed mutant that no longer survives (a
// stale row to delete). `npm run mutate:survivors`; exits 1 when there are unlisted survivors.
import { readFileSync } from 'node:fs';

const report = JSON.parse(readFileSync('reports/mutation/mutation.json', 'utf8'));
const listed = new Map();
for (const line of readFileSync('docs/mutation-survivors.md', 'utf8').split('\n')) {
  // | `src/sim/x.ts:12` | EqualityOperator | `a >= b` | why |  (a `|` inside a cell is written `\|`)
  const cells = line.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, '|'));
  const at = /^`([^`]+):(\d+)`$/.exec(cells[1] ?? '');
  if (!line.startsWith('|') || !at || cells.length < 5) continue;
  const replacement = /^`[^`]+`$/.test(cells[3]) ? cells[3].slice(1, -1) : cells[3];
  listed.set(`${at[1]}:${at[2]} ${cells[2]} ${replacement}`, line);
}

let detected = 0;
let valid = 0;
const unlisted = [];
const seen = new Set();
// One row can stand for several mutants (the same mutator and replacement twice on a line, e.g. two
// operands replaced by `true`): each surviving mutant that matches a row counts.
let equivalent = 0;
for (const [file, { source, mutants }] of Object.entries(report.files)) {
  const lines = source.split('\n');
  for (const mu of mutants) {
    if (mu.status === 'CompileError' || mu.status === 'RuntimeError' || mu.status === 'Ignored') continue;
    valid += 1;
    if (mu.status === 'Killed' || mu.status === 'Timeout') {
      detected += 1;
      continue;
    }
    const replacement = (mu.replacement ?? '').replace(/\s+/g, ' ').trim();
    const key = `${file}:${mu.location.start.line} ${mu.mutatorName} ${replacement}`;
    if (listed.has(key)) {
      seen.add(key);
      equivalent += 1;
      continue;
    }
    const code = (lines[mu.location.start.line - 1] ?? '').trim();
    unlisted.push(`${mu.status.padEnd(10)} ${file}:${mu.location.start.line}:${mu.location.start.column} ${mu.mutatorName} → ${replacement}\n           ${code}`);
  }
}

console.log(`mutation score ${((100 * detected) / valid).toFixed(2)} % (${detected} of ${valid} detected)`);
console.log(`score counting the ${equivalent} listed equivalent mutants as detected: ${((100 * (detected + equivalent)) / valid).toFixed(2)} %`);
if (unlisted.length > 0) console.log(`\n${unlisted.length} survivor(s) not listed in docs/mutation-survivors.md:\n${unlisted.join('\n')}`);
// A report of some files only (a focused run, stryker.focus.config.mjs) judges only those files' rows.
const reported = new Set(Object.keys(report.files));
const stale = [...listed.keys()].filter((k) => !seen.has(k) && reported.has(k.slice(0, k.search(/:\d+ /))));
if (stale.length > 0) console.log(`\n${stale.length} listed mutant(s) no longer survive (delete their rows):\n${stale.join('\n')}`);
process.exitCode = unlisted.length > 0 ? 1 : 0;
