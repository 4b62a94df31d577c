/**
 * Numbers shown without their unit: a page-text check for the durations Lockscope shows (a TTL, a
 * timeout, a fault's time), which must always carry ms or s. Shared by e2e/units.spec.ts.
 */
import type { Page } from '@playwright/test';

/**
 * A number in parentheses with nothing else ("(3000)"), or a number right after a duration word or
 * a bound ("renew every 3000", "empty = 1000", "≤ 3600000") that no unit or noun follows ("after 12
 * empty receives" counts receives). Values in a sentence ("balance = 100", "token ≥ 33") are not
 * durations and are not matched.
 */
export const BARE_NUMBER = /(?<![\w=])\(\s*\d[\d,.]*\s*\)|\b(?:TTL|timeout|after|every|within|lag|delay|paused?|waits?|waited|lasts?|took|for|empty =|at most|at least|≤)\s+\d[\d,.]*(?=\s*(?:$|[,;:)(]|\.(?!\d)))/g;

/**
 * Parenthesised numbers that are not durations, by what precedes them: a heading's count
 * ("Faults (2)"), a fencing token ("higher than any granted before (33)"), an amount ("the
 * committed debits (80)") and a SQLSTATE ("duplicate key (23505)").
 */
const NOT_A_DURATION = /(?:Faults|granted before|committed debits|duplicate key)\s*$/;

/**
 * The bare numbers in the page's text as "…context…" strings: every text node shown (not inside
 * code, a SQL or Redis command or the JSON editor, which speak their own syntax), and every
 * accessible name and tooltip outside them.
 */
export async function bareNumbers(page: Page): Promise<string[]> {
  const texts = await page.evaluate(() => {
    const CODE = 'code, pre, kbd, samp, textarea, script, style, .mono, .log-command, .log-reply, .cmd, .reply';
    const out: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    // One line per element: the text of its own text nodes, joined (so "after " + "3000" reads as
    // one), after the words that precede the element in its parent ("Faults" before a "(2)" span).
    const byParent = new Map<Element, string>();
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!el || el.closest(CODE) || !el.checkVisibility?.()) continue;
      if (!byParent.has(el)) {
        const r = document.createRange();
        if (el.parentElement) {
          r.setStart(el.parentElement, 0);
          r.setEndBefore(el);
        }
        byParent.set(el, `${el.parentElement ? r.toString().slice(-60) : ''}\u0000`);
      }
      byParent.set(el, byParent.get(el)! + (n.textContent ?? ''));
    }
    out.push(...byParent.values());
    for (const el of document.querySelectorAll('[title], [aria-label]')) {
      if (el.closest(CODE)) continue;
      for (const a of ['title', 'aria-label']) {
        const v = el.getAttribute(a);
        if (v) out.push(v);
      }
    }
    return out;
  });
  const found = new Set<string>();
  for (const t of texts) {
    const own = t.indexOf('\u0000') + 1;
    for (const m of t.slice(own).matchAll(new RegExp(BARE_NUMBER.source, 'g'))) {
      const before = t.slice(0, own + m.index).replace('\u0000', '');
      if (m[0].startsWith('(') && NOT_A_DURATION.test(before)) continue;
      found.add(`…${before.slice(-50)}${m[0]}${t.slice(own + m.index + m[0].length, own + m.index + m[0].length + 20)}…`);
    }
  }
  return [...found];
}
