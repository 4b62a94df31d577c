// Compares the survivors of the last `npm run mutate` (reports/mutation/mutation.json) with the
// equivalent mutants listed in docs/mutation-survivors.md, so a run is judged by what changed:
// prints the score, every survivor or no-coverage mutant not listed there (tests to write, or a
// new equivalent to list with its reason), and every listed mutant that no longer survives (a
// stale row to delete). `npm run mutate:survivors`; exits 1 when there are unlisted survivors.
// It reads every report in reports/mutation/ (the whole run's mutation.json and the shards'
// mutation-<shard>.json, MUTATE_SHARD in stryker.config.mjs): for each source file the newest
// report that has it counts, and the folders no report covers are named.
// `--write F` also writes the figures (per folder and per file) and the unlisted survivors to F as
// Markdown (docs/mutation-score.md): reports/ is not kept in the repository, so the measured
// state of the next session's starting point lives there.
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';

const DIR = 'reports/mutation';
const reports = readdirSync(DIR)
  .filter((n) => /^mutation(-[a-z]+)?\.json$/.test(n))
  .map((n) => ({ name: n, mtimeMs: statSync(`${DIR}/${n}`).mtimeMs }))
  .sort((a, b) => a.mtimeMs - b.mtimeMs);
if (reports.length === 0) throw new Error(`no mutation report in ${DIR}: run \`npm run mutate\` or \`npm run mutate:shards\` first`);
const report = { files: {} };
for (const r of reports) Object.assign(report.files, JSON.parse(readFileSync(`${DIR}/${r.name}`, 'utf8')).files);
const SCOPE = ['src/sim/resources/', 'src/sim/invariants/', 'src/sim/workers/'];
const missing = SCOPE.filter((dir) => !Object.keys(report.files).some((f) => f.startsWith(dir)));
console.log(`reports: ${reports.map((r) => `${r.name} (${new Date(r.mtimeMs).toISOString().slice(0, 16)})`).join(', ')}`);
if (missing.length > 0) console.log(`not measured: ${missing.join(', ')} (no report covers them; the score below is of the rest)`);
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
/** Per folder of the scope: mutants detected (killed or timed out) and valid (not a compile or runtime error, not ignored). */
const byFolder = {};
/** The same per source file, with the survivors not listed as equivalent. */
const byFile = {};
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
    const folder = SCOPE.find((dir) => file.startsWith(dir)) ?? file;
    const f = (byFolder[folder] ??= { detected: 0, valid: 0 });
    const g = (byFile[file] ??= { detected: 0, valid: 0, equivalent: 0, unlisted: 0 });
    f.valid += 1;
    g.valid += 1;
    if (mu.status === 'Killed' || mu.status === 'Timeout') {
      detected += 1;
      f.detected += 1;
      g.detected += 1;
      continue;
    }
    const replacement = (mu.replacement ?? '').replace(/\s+/g, ' ').trim();
    const key = `${file}:${mu.location.start.line} ${mu.mutatorName} ${replacement}`;
    if (listed.has(key)) {
      seen.add(key);
      equivalent += 1;
      g.equivalent += 1;
      continue;
    }
    g.unlisted += 1;
    const code = (lines[mu.location.start.line - 1] ?? '').trim();
    unlisted.push(`${mu.status.padEnd(10)} ${file}:${mu.location.start.line}:${mu.location.start.column} ${mu.mutatorName} → ${replacement}\n           ${code}`);
  }
}

console.log(`mutation score ${((100 * detected) / valid).toFixed(2)} % (${detected} of ${valid} detected)`);
for (const [folder, f] of Object.entries(byFolder)) console.log(`  ${folder.padEnd(22)} ${((100 * f.detected) / f.valid).toFixed(2).padStart(6)} % (${f.detected} of ${f.valid})`);
console.log(`score counting the ${equivalent} listed equivalent mutants as detected: ${((100 * (detected + equivalent)) / valid).toFixed(2)} %`);
if (unlisted.length > 0) console.log(`\n${unlisted.length} survivor(s) not listed in docs/mutation-survivors.md:\n${unlisted.join('\n')}`);
// A report of some files only (a focused run, stryker.focus.config.mjs) judges only those files' rows.
const reported = new Set(Object.keys(report.files));
const stale = [...listed.keys()].filter((k) => !seen.has(k) && reported.has(k.slice(0, k.search(/:\d+ /))));
if (stale.length > 0) console.log(`\n${stale.length} listed mutant(s) no longer survive (delete their rows):\n${stale.join('\n')}`);

const out = process.argv.indexOf('--write');
if (out !== -1) {
  const target = process.argv[out + 1];
  if (target === undefined) throw new Error('--write needs a file name (e.g. docs/mutation-score.md)');
  const pct = (a, b) => `${((100 * a) / b).toFixed(1)} %`;
  const md = [
    '# Mutation score as last measured',
    '',
    `Written by \`npm run mutate:survivors -- --write ${target}\` from ${reports.map((r) => `\`${r.name}\` (${new Date(r.mtimeMs).toISOString().slice(0, 10)})`).join(', ')}. A report of a focused run (\`stryker.focus.config.mjs\`: a file against some test files only) gives a lower bound for its files. Equivalent mutants are listed in \`docs/mutation-survivors.md\`; "to kill" counts the other survivors (and mutants no test covers).`,
    '',
    missing.length > 0 ? `Not measured: ${missing.map((m) => `\`${m}\``).join(', ')}.\n` : '',
    `All measured files: **${pct(detected, valid)}** (${detected} of ${valid} detected; ${pct(detected + equivalent, valid)} counting the ${equivalent} listed equivalent mutants).`,
    '',
    '| folder or file | score | detected / valid | equivalent | to kill |',
    '|---|---|---|---|---|',
    ...Object.entries(byFolder).flatMap(([folder, f]) => [
      `| **\`${folder}\`** | **${pct(f.detected, f.valid)}** | ${f.detected} / ${f.valid} | | |`,
      ...Object.entries(byFile).filter(([file]) => file.startsWith(folder)).sort(([a], [b]) => a.localeCompare(b))
        .map(([file, g]) => `| \`${file.slice(folder.length)}\` | ${pct(g.detected, g.valid)} | ${g.detected} / ${g.valid} | ${g.equivalent} | ${g.unlisted} |`),
    ]),
    '',
    `## Survivors to kill (${unlisted.length})`,
    '',
    'Status, place, mutator → replacement, and the line as it stood when measured.',
    '',
    '```',
    ...unlisted,
    '```',
    '',
  ].join('\n');
  writeFileSync(target, md);
  console.log(`\nwrote ${target}`);
}
process.exitCode = unlisted.length > 0 ? 1 : 0;
