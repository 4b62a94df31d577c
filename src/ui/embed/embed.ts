/**
 * The embed view's pure helpers: whether this page is framed or its link asks for the embed
 * (`e=1`), the full view's link for "Open in Lockscope", and the `<iframe>` snippet the share
 * panel offers to copy.
 */
import { encodeShare } from '../../share/link';
import { readHash, shareStateOf, type UrlFields } from '../url/urlState';

/** The snippet's default frame size in CSS pixels (16:9, a slide's proportions). */
export const EMBED_SIZE = { widthPx: 960, heightPx: 540 } as const;

/**
 * True when the page runs inside a frame. A framed page always shows the embed view, never the
 * full app (no import, no drafts, no history entries in the page around it): being framed is safe
 * whatever the hosting's headers allow. Comparing `top` with `self` is allowed across origins.
 */
export function isFramed(win: { readonly top: unknown; readonly self: unknown }): boolean {
  try {
    return win.top !== win.self;
  } catch {
    return true;
  }
}

/** True when a location hash is a valid link that asks for the embed view (`e=1`). Never throws. */
export function embedRequested(hash: string): boolean {
  const intent = readHash(hash);
  return intent.kind === 'shared' && intent.state.e === 1;
}

/** The fragment (with `#`) of the same state in the full view (the embed flag dropped), or `#/` for the catalogue. */
export function fullViewHash(s: UrlFields): string {
  const state = shareStateOf({ ...s, embed: false });
  return state === null ? '#/' : `#${encodeShare(state)}`;
}

/** The fragment (with `#`) of the same state as an embed (`e=1`; the simulator, whatever view is open). */
export function embedHash(s: UrlFields): string {
  const state = shareStateOf({ ...s, view: 'simulate', embed: true, interview: null, mode: s.mode === 'interview' ? 'explore' : s.mode });
  return state === null ? '#/' : `#${encodeShare(state)}`;
}

/** Escapes text for a double-quoted HTML attribute (a scenario's title is the author's text, never markup). */
export function escapeAttr(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * The `<iframe>` element to paste into a slide deck or a blog post. `src` is the embed link;
 * `title` names the frame for screen readers. Borderless, lazily loaded, with no referrer sent.
 */
export function embedSnippet(src: string, title: string, size: { widthPx: number; heightPx: number } = EMBED_SIZE): string {
  return `<iframe src="${escapeAttr(src)}" width="${size.widthPx}" height="${size.heightPx}" title="${escapeAttr(`Lockscope: ${title}`.slice(0, 200))}" style="border:0" loading="lazy" referrerpolicy="no-referrer"></iframe>`;
}
