/**
 * The timeline as a standalone SVG (and PNG): the d3 drawing cloned with its computed styles
 * inlined as presentation attributes, the lane names (HTML in the app) redrawn as SVG text, the
 * cursor line and a title. Built with DOM APIs and XMLSerializer, so every name is escaped text:
 * markup in a title cannot become elements. PNG: the SVG drawn on a canvas.
 */
const SVG_NS = 'http://www.w3.org/2000/svg';
/** Computed properties copied onto each cloned element. */
const PROPS = ['fill', 'fill-opacity', 'stroke', 'stroke-width', 'stroke-dasharray', 'stroke-opacity', 'opacity', 'font-family', 'font-size', 'font-weight', 'text-anchor', 'visibility'] as const;
const DROP_ATTRS = ['tabindex', 'role', 'class', 'style', 'aria-label', 'aria-pressed', 'aria-hidden', 'data-fault-index'];
const HEADER_H = 34;

function inlineStyles(orig: Element, clone: Element): void {
  const cs = typeof getComputedStyle === 'function' ? getComputedStyle(orig) : null;
  if (cs) {
    for (const p of PROPS) {
      const v = cs.getPropertyValue(p);
      // The computed value wins: the theme's CSS (lane colours, axis ink) overrides attributes.
      if (v) clone.setAttribute(p, v);
    }
  }
  for (const a of DROP_ATTRS) clone.removeAttribute(a);
  const oc = orig.children;
  const cc = clone.children;
  for (let i = 0; i < oc.length && i < cc.length; i++) inlineStyles(oc[i]!, cc[i]!);
}

/** The title of an exported image (kept beside the file names it goes with, ./files.ts). */
export { imageTitle } from './files';

/** A standalone SVG document (text) of the timeline inside `root` (a `.timeline` element). */
export function timelineSvg(root: Element, title: string): { svg: string; width: number; height: number } {
  const src = root.querySelector('svg.timeline-svg');
  if (!src) throw new Error('no timeline on screen');
  const plotW = Number(src.getAttribute('width')) || 800;
  const plotH = Number(src.getAttribute('height')) || 300;
  const labels = [...root.querySelectorAll<HTMLElement>('.lane-labels .lane-label')];
  const gutter = Number.parseFloat((root.querySelector<HTMLElement>('.lane-labels')?.style.width ?? '').replace('px', '')) || 128;
  const width = Math.round(gutter + plotW + 16);
  const height = Math.round(plotH + HEADER_H + 8);

  // The theme on screen: the export keeps its background and ink.
  const rootStyle = typeof getComputedStyle === 'function' ? getComputedStyle(root) : null;
  const paper = rootStyle?.backgroundColor && rootStyle.backgroundColor !== 'rgba(0, 0, 0, 0)' ? rootStyle.backgroundColor : '#ffffff';
  const ink = rootStyle?.color || '#111827';
  const out = document.createElementNS(SVG_NS, 'svg');
  out.setAttribute('width', String(width));
  out.setAttribute('height', String(height));
  out.setAttribute('viewBox', `0 0 ${width} ${height}`);
  out.setAttribute('font-family', 'system-ui, -apple-system, Segoe UI, Roboto, sans-serif');
  const bg = document.createElementNS(SVG_NS, 'rect');
  bg.setAttribute('width', '100%');
  bg.setAttribute('height', '100%');
  bg.setAttribute('fill', paper);
  out.append(bg);
  const head = document.createElementNS(SVG_NS, 'text');
  head.setAttribute('x', '8');
  head.setAttribute('y', '22');
  head.setAttribute('font-size', '16');
  head.setAttribute('font-weight', '700');
  head.setAttribute('fill', ink);
  head.textContent = title; // text node: escaped by the serializer
  out.append(head);

  const lab = document.createElementNS(SVG_NS, 'g');
  lab.setAttribute('transform', `translate(0,${HEADER_H})`);
  for (const l of labels) {
    const top = Number.parseFloat(l.style.top) || 0;
    const h = Number.parseFloat(l.style.height) || 20;
    const t = document.createElementNS(SVG_NS, 'text');
    t.setAttribute('x', '6');
    t.setAttribute('y', String(Math.round(top + h / 2 + 5)));
    const ls = typeof getComputedStyle === 'function' ? getComputedStyle(l) : null;
    t.setAttribute('font-size', ls?.fontSize || '14px');
    t.setAttribute('font-weight', '700');
    t.setAttribute('fill', ls?.color || ink);
    t.textContent = (l.firstChild?.textContent ?? l.textContent ?? '').replace(/\+$/, '').trim();
    lab.append(t);
  }
  out.append(lab);

  const plot = src.cloneNode(true) as SVGSVGElement;
  inlineStyles(src, plot);
  plot.setAttribute('x', String(gutter));
  plot.setAttribute('y', String(HEADER_H));
  plot.setAttribute('overflow', 'visible');
  out.append(plot);

  // The cursor (an HTML overlay in the app).
  const overlay = root.querySelector<HTMLElement>('.cursor-overlay');
  const m = /translateX\(([-\d.]+)px\)/.exec(overlay?.style.transform ?? '');
  if (m && overlay?.style.visibility !== 'hidden') {
    const cx = Number(m[1]);
    const line = document.createElementNS(SVG_NS, 'line');
    line.setAttribute('x1', String(cx));
    line.setAttribute('x2', String(cx));
    line.setAttribute('y1', String(HEADER_H));
    line.setAttribute('y2', String(HEADER_H + plotH));
    line.setAttribute('stroke', '#dc2626');
    line.setAttribute('stroke-width', '2');
    out.append(line);
  }
  const svg = `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(out)}`;
  return { svg, width, height };
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC-32 (ISO-HDLC, as PNG chunks use it). */
export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/**
 * The PNG with an `iTXt` chunk `keyword` = `text` (UTF-8) right after its header chunk: the
 * image's title as metadata, the same words the image draws (so what a title hides can be
 * checked in the file). Returns the input unchanged when it is not a PNG.
 */
export function pngWithText(png: Uint8Array, keyword: string, text: string): Uint8Array {
  const SIG = [137, 80, 78, 71, 13, 10, 26, 10];
  if (png.length < 33 || SIG.some((b, i) => png[i] !== b)) return png;
  const enc = new TextEncoder();
  const data = new Uint8Array([...enc.encode(keyword.slice(0, 79)), 0, 0, 0, 0, 0, ...enc.encode(text)]);
  const chunk = new Uint8Array(12 + data.length);
  const view = new DataView(chunk.buffer);
  view.setUint32(0, data.length);
  chunk.set(enc.encode('iTXt'), 4);
  chunk.set(data, 8);
  view.setUint32(8 + data.length, crc32(chunk.subarray(4, 8 + data.length)));
  // Signature (8) + IHDR (4 length + 4 type + 13 data + 4 CRC) = 33 bytes, then the new chunk.
  const out = new Uint8Array(png.length + chunk.length);
  out.set(png.subarray(0, 33), 0);
  out.set(chunk, 33);
  out.set(png.subarray(33), 33 + chunk.length);
  return out;
}

/** Renders SVG text to a PNG blob at `scale` (canvas drawImage of the SVG as an image); with `title`, also kept as the PNG's `Title` text. */
export function svgToPng(svg: string, width: number, height: number, scale = 2, title?: string): Promise<Blob> {
  return new Promise((resolve, reject) => {
    const url = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' }));
    const img = new Image();
    img.onload = () => {
      try {
        const canvas = document.createElement('canvas');
        canvas.width = Math.round(width * scale);
        canvas.height = Math.round(height * scale);
        const ctx = canvas.getContext('2d');
        if (!ctx) throw new Error('no 2D canvas');
        ctx.scale(scale, scale);
        ctx.fillStyle = '#ffffff';
        ctx.fillRect(0, 0, width, height);
        ctx.drawImage(img, 0, 0, width, height);
        canvas.toBlob((b) => {
          if (!b) return reject(new Error('the canvas produced no PNG'));
          if (title === undefined) return resolve(b);
          b.arrayBuffer().then((buf) => resolve(new Blob([pngWithText(new Uint8Array(buf), 'Title', title) as Uint8Array<ArrayBuffer>], { type: 'image/png' })), reject);
        }, 'image/png');
      } catch (e) {
        reject(e instanceof Error ? e : new Error(String(e)));
      } finally {
        URL.revokeObjectURL(url);
      }
    };
    img.onerror = () => {
      URL.revokeObjectURL(url);
      reject(new Error('the timeline SVG could not be drawn'));
    };
    img.src = url;
  });
}
