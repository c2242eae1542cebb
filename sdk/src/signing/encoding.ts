import { encodeBase64, toUtf8Bytes, toUtf8String, Utf8ErrorFuncs } from 'ethers';

/** UTF-8 bytes of a string, with ethers: the same code runs in browsers and in Node. */
export const utf8 = (text: string): Uint8Array => toUtf8Bytes(text);

/** Decodes UTF-8, replacing malformed sequences with U+FFFD as the server's decoder does. */
export const fromUtf8 = (bytes: Uint8Array): string => toUtf8String(bytes, Utf8ErrorFuncs.replace);

/** Standard base64 (`A-Za-z0-9+/`, `=` padded). */
export const base64 = (bytes: Uint8Array): string => encodeBase64(bytes);

/** base64url without padding (`A-Za-z0-9-_`). */
export const base64Url = (bytes: Uint8Array): string =>
  encodeBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

/** Lowercase hex without the 0x prefix. */
export const bareHex = (hex: string): string => (hex.startsWith('0x') ? hex.slice(2) : hex).toLowerCase();
