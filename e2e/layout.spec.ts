import { test, expect, type Page } from '@playwright/test';

/** Top and bottom of an element in the viewport. */
async function box(page: Page, selector: string) {
  const b = await page.locator(selector).first().boundingBox();
  if (!b) throw new Error(`${selector} not on screen`);
  return { top: b.y, bottom: b.y + b.height };
}

for (const [w, h] of [[1280, 800], [1920, 1080]] as const) {
  test(`at ${w}×${h} the verdict, transport, timeline, mechanism and faults are visible together`, async ({ page }) => {
    await page.setViewportSize({ width: w, height: h });
    await page.goto('/#/sim/export-lease-expiry');
    await expect(page.getByTestId('verdict')).toContainText('Violated');
    const check = async () => {
      for (const sel of ['[data-testid="verdict"]', '.transport', '.timeline', 'section.mechanism', '#sw-fencing', 'section.faults h2', '.fault-list li']) {
        const b = await box(page, sel);
        expect(b.top, sel).toBeGreaterThanOrEqual(0);
        expect(b.bottom, sel).toBeLessThanOrEqual(h);
      }
    };
    await check();
    // Ticking a switch keeps the verdict in view.
    await page.getByLabel('Fencing token (checked by the destination)').check();
    await expect(page.getByTestId('verdict')).toContainText('Held');
    await check();
  });
}

test('lane names fit in Large type', async ({ page }) => {
  await page.goto('/#/sim/export-lease-expiry');
  await page.locator('.display-prefs > summary').click();
  await page.getByLabel('Large type').check();
  const label = page.getByRole('button', { name: /^lease:export: add a fault/ });
  await expect(label).toBeVisible();
  const clipped = await label.evaluate((el) => {
    const text = el.firstChild as Text;
    const r = document.createRange();
    r.selectNodeContents(text);
    return r.getBoundingClientRect().right > el.getBoundingClientRect().right - 4;
  });
  expect(clipped).toBe(false);
});

test('the catalogue\'s "Open …" links answer Space as well as Enter', async ({ page }) => {
  await page.goto('/#/');
  const open = page.getByRole('link', { name: 'Open without the fix' }).first();
  await open.focus();
  await page.keyboard.press('Space');
  await expect(page.getByTestId('verdict')).toBeVisible();
  await expect(page.locator('.catalogue')).toHaveCount(0);
});

/** For each select: the selected option's text width (canvas, the select's font) and the room inside the select. */
async function selectRoom(page: Page, selector: string) {
  return page.locator(selector).evaluateAll((els) => els.map((el) => {
    const s = el as HTMLSelectElement;
    const cs = getComputedStyle(s);
    const ctx = document.createElement('canvas').getContext('2d')!;
    ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    const text = s.selectedOptions[0]?.textContent ?? '';
    // The room: the content box minus the drop-down arrow (about 20 px).
    const room = s.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 20;
    return { text, need: Math.ceil(ctx.measureText(text).width), room: Math.floor(room) };
  }));
}

test('at 1280×800 no text is cut: the scenario picker, the mechanism selects, the lane labels, the narration', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  for (const id of ['admin-bypass', 'export-lease-expiry', 'session-lock-pool', 'invoice-race']) {
    await page.goto(`/#/sim/${id}`);
    await expect(page.getByTestId('verdict')).toBeVisible();
    for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
    const selects = await selectRoom(page, '.app-header select, .mechanism select');
    for (const s of selects) expect(s.need, `"${s.text}" in ${id}`).toBeLessThanOrEqual(s.room);
    const labels = await page.locator('.lane-label').evaluateAll((els) => els.map((el) => ({ text: el.textContent, cut: el.scrollWidth > el.clientWidth + 1 })));
    for (const l of labels) expect(l.cut, `lane label ${l.text} in ${id}`).toBe(false);
    const narration = await page.locator('.cursor-readout').evaluate((el) => el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1);
    expect(narration).toBe(false);
  }
});

test('scrubbing never moves the timeline: the cursor readout keeps one height, and a narration longer than it scrolls inside it', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/#/sim/lock-order-deadlock');
  await expect(page.getByTestId('verdict')).toBeVisible();
  const timelineTop = async () => (await page.locator('.timeline').first().boundingBox())!.y;
  const tops = new Set<number>();
  let longest = { overflows: false, focusable: false, text: '' };
  for (let i = 0; i < 22; i++) {
    await page.keyboard.press('ArrowRight');
    tops.add(Math.round(await timelineTop()));
    const r = await page.locator('.cursor-readout').evaluate((el) => ({ overflows: el.scrollHeight > el.clientHeight + 1, focusable: (el as HTMLElement).tabIndex === 0, text: el.textContent ?? '', title: el.getAttribute('title') ?? '' }));
    if (r.text.length > longest.text.length) longest = r;
    // Nothing is lost: the whole sentence is in the box (scrollable) and on hover.
    expect(r.text).toContain(r.title);
  }
  expect([...tops]).toHaveLength(1);
  // The 40P01 narration (e11) is longer than three lines at 1280: it scrolls, and the keyboard can reach it.
  expect(longest.text).toContain('40P01');
  expect(longest.overflows).toBe(true);
  expect(longest.focusable).toBe(true);
});

test('the fault menu opens inside the window, even from the lowest lane', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/#/sim/export-lease-expiry');
  await expect(page.getByTestId('verdict')).toBeVisible();
  // Scroll so that the lowest lane sits near the bottom of the window, then open its menu.
  const label = page.locator('.lane-label').last();
  await label.evaluate((el) => window.scrollBy(0, el.getBoundingClientRect().bottom - window.innerHeight + 12));
  await label.click();
  const menu = page.getByRole('menu');
  await expect(menu).toBeVisible();
  const box = (await menu.boundingBox())!;
  expect(box.y).toBeGreaterThanOrEqual(0);
  expect(box.y + box.height).toBeLessThanOrEqual(800);
  expect(box.x + box.width).toBeLessThanOrEqual(1280);
});

test('the change note stays one line high; clicking inside the content draws no ring around it', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/#/sim/export-lease-expiry');
  await expect(page.getByTestId('verdict')).toBeVisible();
  const timelineTop = (await page.locator('.timeline').boundingBox())!.y;
  await page.getByLabel('Fencing token (checked by the destination)').check();
  const badge = page.getByTestId('change-badge');
  await expect(badge).toContainText('verdict: violated → held');
  expect((await badge.boundingBox())!.height).toBeLessThanOrEqual(44);
  // The note pushes the timeline down by one line at most.
  expect((await page.locator('.timeline').boundingBox())!.y - timelineTop).toBeLessThanOrEqual(52);

  // Keyboard first (the cursor keys), then a click in the content: no focus ring on the content.
  await page.keyboard.press('ArrowRight');
  await page.locator('.situation p').click();
  const ring = await page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return 'none';
    const cs = getComputedStyle(el);
    return cs.outlineStyle === 'none' || cs.outlineWidth === '0px' ? 'none' : `${el.tagName}.${el.className}: ${cs.outlineStyle} ${cs.outlineWidth}`;
  });
  expect(ring).toBe('none');
});

test('at 1280×800 the editor\'s choices show their selected option whole', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  for (const id of ['export-lease-expiry', 'session-lock-pool', 'invoice-race']) {
    await page.goto(`/#/sim/${id}`);
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    await expect(page.locator('.editor-form')).toBeVisible();
    const selects = await selectRoom(page, '.editor-form .row select');
    expect(selects.length).toBeGreaterThan(5);
    for (const s of selects) expect(s.need, `"${s.text}" in ${id}`).toBeLessThanOrEqual(s.room);
  }
});
