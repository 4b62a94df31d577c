/**
 * A narration's explanation part, kept apart from its fact (issue 12, interview mode).
 *
 * Some sentences say what happened and then why it matters in terms that name the missing
 * mechanism or the fix ("B writes row 7 … (UPDATE 1); the UPDATE does not check the fence."). An
 * interview candidate must read the fact, not the explanation. A call site words such a sentence
 * with `explained(fact, hint, end)`; `World.emit` splits it (`splitNarration`) so that the event's
 * `narration` is the whole sentence, byte for byte what it was (the trace hash is unchanged), and
 * its `fact` the sentence without the hint. Views read `fact` as data (never cut a narration
 * themselves).
 *
 * The two parts travel through the template literals between the call site and `emit` inside one
 * string, delimited by two private-use code points (U+E000, U+E001) that no other text of the
 * model uses; `emit` removes them, so no event's text carries them (`narration.test.ts`).
 */

const OPEN = '\uE000';
const CLOSE = '\uE001';

/**
 * A sentence = `fact` + `hint` + `end`: `hint` carries its own leading separator (" (no lock: …)",
 * "; the UPDATE does not check the fence", ": nothing in the UPDATE compares the tokens, so …").
 * The event's `fact` is then `fact + end`. Only for sentences that `World.emit` receives.
 */
export function explained(fact: string, hint: string, end = '.'): string {
  return `${fact}${OPEN}${hint}${CLOSE}${end}`;
}

/** A raw narration split: the whole sentence without markers, and the fact alone when it had a hint part (else undefined). */
export function splitNarration(raw: string): { readonly narration: string; readonly fact: string | undefined } {
  const open = raw.indexOf(OPEN);
  if (open < 0) return { narration: raw, fact: undefined };
  let narration = '';
  let fact = '';
  let at = 0;
  for (let o = open; o >= 0; o = raw.indexOf(OPEN, at)) {
    const close = raw.indexOf(CLOSE, o + 1);
    const end = close < 0 ? raw.length : close;
    narration += raw.slice(at, o) + raw.slice(o + 1, end);
    fact += raw.slice(at, o);
    at = close < 0 ? raw.length : close + 1;
  }
  narration += raw.slice(at);
  fact += raw.slice(at);
  return { narration, fact };
}
