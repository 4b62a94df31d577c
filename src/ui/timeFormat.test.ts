/**
 * One formatter for times: every panel, narration, fault description and invariant message words
 * a virtual time with `fmtTime` (src/sim/engine/fmt.ts), so one instant reads the same everywhere.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fmtMs, fmtSeconds, fmtTime } from '../sim';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
  });
}

/** The only places that may turn milliseconds into words or digits themselves, and why. */
const ALLOWED: Record<string, string> = {
  'sim/engine/fmt.ts': 'the formatter itself',
  'ui/timeline/axisScale.ts': 'axis ticks: one unit along the whole axis, decimals by the tick step',
  'ui/fields/SecondsInput.tsx': 'the value of a number field in seconds, not words',
  'sim/engine/world.ts': 'a programming error message (RangeError), never shown in the app',
  'sim/resources/messageQueue.ts': 'SQS\'s VisibilityTimeout parameter of the literal request: an integer number of seconds, not words',
  'sim/resources/lockService.ts': 'etcd\'s lease TTL in the literal request and in etcdctl\'s output (ttlSecondsOf): an integer number of seconds, not words',
  'ui/interview/InterviewPanel.tsx': 'the interview timer: a stopwatch of wall-clock time (m:ss), not a virtual time',
};

describe('time formatting', () => {
  it('fmtTime: ms under a second, seconds with the decimals the value needs, nothing lost', () => {
    expect([0, 40, 999, 1000, 1500, 1250, 12_345, 9_800, 65_000, 1234.6, -1500].map(fmtTime)).toEqual(['0 ms', '40 ms', '999 ms', '1 s', '1.5 s', '1.25 s', '12.345 s', '9.8 s', '65 s', '1.235 s', '-1.5 s']);
    expect(fmtMs).toBe(fmtTime);
    expect(fmtSeconds).toBe(fmtTime);
  });

  it('no other source words a time by hand (/ 1000, toFixed, `… ms` / `… s` templates)', () => {
    const root = join(__dirname, '..');
    const offenders = [...files(join(root, 'ui')), ...files(join(root, 'sim'))].flatMap((f) => {
      const rel = relative(root, f).replaceAll('\\', '/');
      if (ALLOWED[rel]) return [];
      return readFileSync(f, 'utf8').split('\n').flatMap((line, i) => (/\/ ?1000\b|\.toFixed\(|\$\{[^}]*\} m?s\b/.test(line) ? [`${rel}:${i + 1}: ${line.trim().slice(0, 100)}`] : []));
    });
    expect(offenders).toEqual([]);
  });
});
