/**
 * RPC URLs carry credentials: userinfo (`https://user:pass@host`), query keys (`?apikey=`) and, for Infura,
 * Alchemy or QuickNode, a key as a path segment. Logs, errors and metrics only ever see this redacted form.
 */
const SECRET_SEGMENT_MIN_LENGTH = 16;

/** `scheme://host[:port]` plus the path with key-like segments masked; no userinfo, query or fragment. */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '[unparseable url]';
  }
  const path = parsed.pathname
    .split('/')
    .map((segment) => (segment.length >= SECRET_SEGMENT_MIN_LENGTH ? '***' : segment))
    .join('/');
  return `${parsed.protocol}//${parsed.host}${path === '/' ? '' : path}`;
}

// A scheme, then everything up to whitespace, a quote or a closing bracket: how URLs appear in error texts.
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>()[\]{},]+/gi;

/** Replaces every URL quoted in a text (error messages of fetch and ethers quote the request URL). */
export function redactUrls(text: string): string {
  return text.replace(URL_IN_TEXT, (match) => redactUrl(match));
}
