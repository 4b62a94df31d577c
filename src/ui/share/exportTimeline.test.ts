// @vitest-environment jsdom
import { imageTitle, timelineSvg } from './exportTimeline';

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
