/**
 * Random tokens for links (an interview's token, a workshop's channel name). Its own module, so
 * that the bookmarks panel (a workshop's channel) needs nothing of the interview kit.
 */

/** A random URL-safe token of 22 characters (132 bits: 6 per character) from `getRandomValues` (Web Crypto). */
export function randomToken(crypto: Pick<Crypto, 'getRandomValues'> = globalThis.crypto): string {
  const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  let out = '';
  for (const b of crypto.getRandomValues(new Uint8Array(22))) out += abc[b & 63];
  return out;
}
