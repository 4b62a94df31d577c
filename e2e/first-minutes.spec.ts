/**
 * Issue 9, "the first ten minutes": what a newcomer saw on a projector-sized screen. At 1280×800,
 * for every preset: no select, label or button of the mechanism panel or the editor is cut off;
 * the cursor's time badge never covers a tick label; every pattern-filled bar of the timeline is
 * clipped to the plot, right of the lane names, zoomed in too; at 1280 and 1920 px no two labels of
 * the timeline overlap, none overlaps a mark, and every tick label lies inside the plot.
 */
import { test, expect, type Page } from '@playwright/test';
import { PRESETS } from '../src/sim';
import { timelineCollisions } from './collisions';

/**
 * The controls of the panels under `scope` that are cut off: a select whose selected option is
 * wider than its room (canvas-measured in the select's font, less the drop-down arrow), a label
 * or button whose text overflows it, or any of them reaching outside its panel.
 */
async function clipped(page: Page, scope: string): Promise<string[]> {
  return page.locator(scope).evaluateAll((panels) => {
    const out: string[] = [];
    const ctx = document.createElement('canvas').getContext('2d')!;
    const name = (el: Element) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''} "${(el instanceof HTMLSelectElement ? el.selectedOptions[0]?.textContent : el.textContent)?.trim().slice(0, 60) ?? ''}"`;
    for (const panel of panels) {
      const pr = panel.getBoundingClientRect();
      for (const el of panel.querySelectorAll<HTMLElement>('select, label, button')) {
        const r = el.getBoundingClientRect();
        if (r.width === 0 || r.height === 0 || el.closest('[hidden], details:not([open]) > :not(summary)')) continue;
        if (el instanceof HTMLSelectElement) {
          const cs = getComputedStyle(el);
          ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
          const text = el.selectedOptions[0]?.textContent ?? '';
          const room = el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 20;
          // 2 px of slack: the arrow's 20 px is an estimate (a select sized to its longest option by the browser measured 1 px short).
          if (Math.ceil(ctx.measureText(text).width) > Math.floor(room) + 2) out.push(`${name(el)} needs ${Math.ceil(ctx.measureText(text).width)} px, has ${Math.floor(room)}`);
        } else if (el.scrollWidth > el.clientWidth + 1) {
          out.push(`${name(el)} overflows (${el.scrollWidth} > ${el.clientWidth})`);
        }
        if (r.right > pr.right + 1 || r.left < pr.left - 1) out.push(`${name(el)} reaches outside its panel (${Math.round(r.left)}–${Math.round(r.right)} vs ${Math.round(pr.left)}–${Math.round(pr.right)})`);
      }
    }
    return [...new Set(out)];
  });
}

for (const p of PRESETS) {
  test(`at 1280×800 no control of the mechanism panel or the editor is cut off: ${p.id}`, async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    for (const variant of ['', '/fixed']) {
      await page.goto(`/#/sim/${p.id}${variant}`);
      await expect(page.getByTestId('verdict')).toBeVisible();
      await expect(page.locator('section.mechanism')).toHaveAttribute('aria-busy', 'false');
      // The switches that change nothing wait in a disclosure: open it, they must fit too.
      const inert = page.getByTestId('inert-switches');
      if (await inert.count()) await inert.locator('summary').click();
      expect(await clipped(page, 'section.mechanism'), `${p.id}${variant}`).toEqual([]);
    }
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    await expect(page.locator('.editor-form[data-complete="true"]')).toBeVisible();
    expect(await clipped(page, '.editor-form fieldset')).toEqual([]);
  });
}

/** The tick labels the cursor's badge overlaps (visible ones only), as "label under badge". */
async function coveredTicks(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const badge = document.querySelector('.timeline .cursor-time')!;
    const b = badge.getBoundingClientRect();
    if (getComputedStyle(document.querySelector('.timeline .cursor-overlay')!).visibility === 'hidden') return [];
    return [...document.querySelectorAll<SVGTextElement>('.timeline g.axis g.tick text')]
      .filter((t) => t.style.visibility !== 'hidden')
      .filter((t) => {
        const r = t.getBoundingClientRect();
        return r.right > b.left && r.left < b.right && r.bottom > b.top && r.top < b.bottom;
      })
      .map((t) => `${t.textContent} under ${badge.textContent}`);
  });
}

for (const large of [false, true]) {
  test(`the cursor's time never covers a tick label${large ? ' (Large type)' : ''}: every preset, every event`, async ({ page }) => {
    test.setTimeout(180_000);
    await page.setViewportSize({ width: 1280, height: 800 });
    for (const p of PRESETS) {
      await page.goto(`/#/sim/${p.id}`);
      await expect(page.getByTestId('verdict')).toBeVisible();
      if (large) {
        await page.locator('.display-prefs > summary').click();
        await page.getByLabel('Large type').check();
        await page.locator('.display-prefs > summary').click();
      }
      const n = Number(/event \d+\/(\d+)/.exec(await page.locator('.transport').innerText())?.[1] ?? 0);
      expect(n).toBeGreaterThan(3);
      const units = new Set<string>();
      for (let i = 0; i <= Math.min(n, 60); i++) {
        expect(await coveredTicks(page), `${p.id} at event ${i}`).toEqual([]);
        // The badge speaks the ticks' unit.
        const { badge, ticks } = await page.evaluate(() => ({
          badge: document.querySelector('.timeline .cursor-time')!.textContent ?? '',
          ticks: [...document.querySelectorAll('.timeline g.axis g.tick text')].map((t) => t.textContent ?? ''),
        }));
        for (const t of [badge, ...ticks]) units.add(/ ms$/.test(t) ? 'ms' : / s$/.test(t) ? 's' : t);
        await page.keyboard.press('ArrowRight');
      }
      expect([...units], p.id).toHaveLength(1);
    }
  });
}

test('every pattern-filled bar is clipped to the plot, right of the lane names, zoomed in and panned', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  for (const id of ['fenced-db-write', 'failover-fence', 'lock-order-deadlock', 'queue-redelivery', 'serializable-retry']) {
    await page.goto(`/#/sim/${id}`);
    await expect(page.getByTestId('verdict')).toBeVisible();
    const svg = page.locator('.timeline-svg').first();
    const box = (await svg.boundingBox())!;
    for (const step of [0, 1, 2]) {
      const outside = await page.evaluate(() => {
        const gutter = document.querySelector('.timeline .lane-labels')!.getBoundingClientRect().right;
        const out: string[] = [];
        for (const el of document.querySelectorAll<SVGGraphicsElement>('.timeline-svg [fill^="url(#"]')) {
          const g = el.closest('[clip-path]');
          const id = /^url\(#(.+)\)$/.exec(g?.getAttribute('clip-path') ?? '')?.[1];
          const clip = id ? document.getElementById(id)?.querySelector('rect') : null;
          const svg = el.ownerSVGElement;
          if (!clip || !svg) { out.push(`${el.getAttribute('fill')}: not clipped`); continue; }
          // The clip's left edge on screen (a clipPath's rect has no box of its own: map it through the SVG's transform).
          const m = svg.getScreenCTM()!;
          const left = new DOMPoint(Number(clip.getAttribute('x')), 0).matrixTransform(m).x;
          if (left < gutter - 0.5) out.push(`${el.getAttribute('fill')}: clip starts at ${left} < gutter ${gutter}`);
        }
        return out;
      });
      expect(outside, `${id} step ${step}`).toEqual([]);
      // Zoom in over the plot and pan right (the bars then start left of the view).
      await page.mouse.move(box.x + 200, box.y + 120);
      for (let i = 0; i < 3; i++) await page.mouse.wheel(0, -300);
      await page.mouse.move(box.x + 200, box.y + 120);
      await page.mouse.down();
      await page.mouse.move(box.x + 500, box.y + 120, { steps: 4 });
      await page.mouse.up();
    }
  }
});

for (const width of [1280, 1920]) {
  test(`no two timeline labels overlap, no label overlaps a mark, every tick label is inside the plot: every preset, both variants, zoomed in, at ${width} px`, async ({ page }) => {
    test.setTimeout(180_000);
    await page.setViewportSize({ width, height: 900 });
    for (const p of PRESETS) {
      for (const variant of ['', '/fixed']) {
        // After the first, a hash change: the app follows it without reloading.
        await page.goto(`/#/sim/${p.id}${variant}`);
        await expect(page.getByTestId('verdict')).toBeVisible();
        await expect(page.locator('.timeline-svg g.content g.lane').first()).toBeAttached();
        const found: string[] = [];
        // Fit, then twice zoomed in around the cursor; at the cursor's start and at the last event (the notes follow it).
        for (const zoom of ['fit', '×2', '×4']) {
          found.push(...(await timelineCollisions(page)).map((c) => `${zoom}, cursor at 0: ${c}`));
          await page.keyboard.press('End');
          found.push(...(await timelineCollisions(page)).map((c) => `${zoom}, cursor at the end: ${c}`));
          await page.getByRole('button', { name: 'Zoom in around the cursor' }).click();
        }
        expect(found, `${p.id}${variant} at ${width} px`).toEqual([]);
      }
    }
  });
}
