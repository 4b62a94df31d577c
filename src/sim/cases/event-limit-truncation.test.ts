/**
 * ../shared/cases/event-limit-truncation.json (copied here: CI has no ../shared): three pollers
 * retry a lease every 20 ms; the duplicate would appear at 300 s, but the run reaches the event
 * limit first. The description: "the run is reported as cut short (not "held"), and the CLI does
 * not exit 0". A run cut short proves nothing: the verdict is inconclusive and the CLI exits 3.
 */
import { join } from 'node:path';
import caseFile from './event-limit-truncation.json';
import { parseScenario } from '../scenario/migrate';
import { runScenario } from '../engine/run';
import { LIMITS, type Scenario } from '../scenario/schema';
import { main, EXIT } from '../../cli/simulate';
import { fmtTime } from '../engine/fmt';

function load(): Scenario {
  const parsed = parseScenario(caseFile);
  if (!parsed.ok) throw new Error(`event-limit-truncation.json is not a valid scenario: ${JSON.stringify(parsed.errors)}`);
  return parsed.scenario;
}

describe('event-limit-truncation.json', () => {
  const s = load();

  it('is reported as cut short at N events / T s, not held', () => {
    const r = runScenario(s);
    expect(r.error).toMatch(/more than 20000 events/);
    expect(r.verdict.status).toBe('inconclusive');
    expect(r.verdict.held).toBe(false);
    expect(r.verdict.violations).toEqual([]);
    expect(r.verdict.cutShort).toEqual({ reason: 'eventLimit', events: LIMITS.maxEvents, atMs: r.endMs, unfinished: ['w1', 'w2', 'w3'] });
    expect(r.endMs).toBeLessThan(300_000);
    expect(r.verdict.summary).toBe(`Inconclusive — cut short at 20000 events / ${fmtTime(r.endMs)}: the run reached the event limit before it was over; nothing was violated before then, which proves nothing.`);
  });

  it('the CLI exits 3 (inconclusive), and says so', () => {
    const out: string[] = [];
    const code = main([join(__dirname, 'event-limit-truncation.json')], (line) => out.push(line), () => {});
    expect(code).toBe(EXIT.inconclusive);
    expect(code).toBe(3);
    expect(out.join('\n')).toMatch(/Inconclusive — cut short at 20000 events/);
    const json: string[] = [];
    expect(main([join(__dirname, 'event-limit-truncation.json'), '--json'], (line) => json.push(line), () => {})).toBe(3);
    expect(JSON.parse(json.join('\n')).verdict).toMatchObject({ status: 'inconclusive', held: false, cutShort: { reason: 'eventLimit', events: 20000 } });
  });

  it('what the cut hid: with room for the whole run, the duplicate appears and the verdict is violated', () => {
    const r = runScenario(s, { maxEvents: 200_000 });
    expect(r.error).toBeUndefined();
    expect(r.verdict.status).toBe('violated');
    expect(r.verdict.violations.map((v) => v.invariant)).toEqual(expect.arrayContaining(['effectOnce']));
  });
});
