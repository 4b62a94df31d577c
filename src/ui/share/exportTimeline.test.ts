// @vitest-environment jsdom
import { crc32, imageTitle, pngWithText, timelineSvg } from './exportTimeline';

function fakeTimeline(label: string): HTMLElement {
  const root = document.createElement('div');
  root.className = 'timeline';
  root.innerHTML = `<div class="lane-labels" style="width: 128px"><span class="lane-label" style="top: 40px; height: 30px"></span></div>
    <svg class="timeline-svg" width="600" height="200" role="group"><g class="content"><rect x="1" y="2" width="3" height="4" fill="#123456"></rect><text>t</text></g></svg>
    <div class="cursor-overlay" style="transform: translateX(200px)"></div>`;
  root.querySelector('.lane-label')!.textContent = label;
  return root;
}

describe('timeline SVG export', () => {
  it('is a standalone SVG with lane names and the title as escaped text', () => {
    const title = '<script>alert(1)</script> & <img src=x onerror=alert(2)>';
    const { svg, width, height } = timelineSvg(fakeTimeline('Worker <b>A</b>'), title);
    expect(width).toBe(128 + 600 + 16);
    expect(height).toBeGreaterThan(200);
    expect(svg).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;img');
    expect(svg).not.toContain('<script');
    expect(svg).toContain('Worker &lt;b&gt;A&lt;/b&gt;');
    const doc = new DOMParser().parseFromString(svg, 'image/svg+xml');
    expect(doc.querySelector('parsererror')).toBeNull();
    expect(doc.querySelectorAll('script, img, foreignObject')).toHaveLength(0);
    expect(doc.querySelector('rect[fill="#123456"]')).not.toBeNull();
    expect(svg).not.toMatch(/role=|class=/);
  });
});

describe('the exported image title', () => {
  it('names the verdict only while the view shows it (predict before the reveal and interview mode hide it)', () => {
    expect(imageTitle('Unsafe release', 'violated', true)).toBe('Unsafe release — violated');
    expect(imageTitle('Unsafe release', 'violated', false)).toBe('Unsafe release');
  });
});

/** A 1×1 PNG (as a canvas writes one). */
const ONE_PIXEL = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='), (c) => c.charCodeAt(0));

function chunks(png: Uint8Array): { type: string; data: Uint8Array; crcOk: boolean }[] {
  const out = [];
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  for (let at = 8; at < png.length;) {
    const len = view.getUint32(at);
    const type = new TextDecoder().decode(png.subarray(at + 4, at + 8));
    const crc = view.getUint32(at + 8 + len);
    out.push({ type, data: png.subarray(at + 8, at + 8 + len), crcOk: crc === crc32(png.subarray(at + 4, at + 8 + len)) });
    at += 12 + len;
  }
  return out;
}

describe('PNG export title', () => {
  it('keeps the title as an iTXt chunk after IHDR, UTF-8, with a valid CRC; the image chunks untouched', () => {
    const before = chunks(ONE_PIXEL);
    expect(before.every((c) => c.crcOk)).toBe(true); // the CRC matches the encoder's
    const out = pngWithText(ONE_PIXEL, 'Title', 'Nightly export — violated');
    const after = chunks(out);
    expect(after.map((c) => c.type)).toEqual(['IHDR', 'iTXt', ...before.slice(1).map((c) => c.type)]);
    expect(after.every((c) => c.crcOk)).toBe(true);
    const text = new TextDecoder().decode(after[1]!.data);
    expect(text.startsWith('Title\0\0\0\0\0')).toBe(true);
    expect(text.endsWith('Nightly export — violated')).toBe(true);
    expect(after[2]!.data).toEqual(before[1]!.data);
  });

  it('leaves anything that is not a PNG alone', () => {
    const junk = new Uint8Array([1, 2, 3]);
    expect(pngWithText(junk, 'Title', 'x')).toBe(junk);
  });
});
