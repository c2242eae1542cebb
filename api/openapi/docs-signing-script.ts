import { SCHEME_TAG, SIGNING_HEADERS } from '../../shared/signing/request-signature';
import { staticAsset, type StaticAsset } from './static-asset';

/** The global the script defines, for the page's init script and for tests that run the served file. */
export const DOCS_SIGNING_GLOBAL = 'TasDocsSigning';

/**
 * The docs page's side of the spec's "Authentication", in plain browser JavaScript: WebCrypto only (no
 * node:crypto, no library), so the page signs with nothing but what it is served. It is written out here rather
 * than bundled from shared/signing because the page has no build step; tests run this very text against the
 * server's verifier. Canonical query decoding walks UTF-16 code units as the server's does, so both sides
 * agree even on malformed input.
 *
 * - `signRequest(credentials, {method, url, bodyText, timestamp?, nonce?})` → `{headers, body}`: body is the exact
 *   string to send (canonical JSON of the parsed text; the text itself when it is not JSON, so the service answers
 *   `Invalid JSON body` instead of a body-hash mismatch), undefined for GET/DELETE.
 * - `prepareSwaggerRequest(request, {credentials, isPublic, baseUrl})`: what the page's requestInterceptor does to
 *   the request Swagger UI built, in place.
 * - `publicOperations(spec, specUrl)`: which method and path the OpenAPI document marks public (`security: []`).
 */
const SIGNING_SCRIPT = `(function (root) {
  'use strict';
  var SCHEME_TAG = ${JSON.stringify(SCHEME_TAG)};
  var HEADERS = ${JSON.stringify(SIGNING_HEADERS)};
  var SIGNING_HEADER_NAMES = Object.keys(HEADERS).map(function (k) { return HEADERS[k]; });
  var HEX = '0123456789abcdef';
  var HEX_UPPER = '0123456789ABCDEF';
  var encoder = new TextEncoder();

  function canonicalJson(value) {
    if (value === null) return 'null';
    switch (typeof value) {
      case 'string':
      case 'boolean':
        return JSON.stringify(value);
      case 'number':
        if (!isFinite(value)) throw new TypeError('Canonical JSON has no representation for a non-finite number');
        return JSON.stringify(value);
      case 'object': {
        if (Array.isArray(value)) return '[' + value.map(canonicalJson).join(',') + ']';
        // The default sort compares UTF-16 code units, as the spec asks.
        var keys = Object.keys(value).sort();
        return '{' + keys.map(function (k) { return JSON.stringify(k) + ':' + canonicalJson(value[k]); }).join(',') + '}';
      }
      default:
        throw new TypeError('Canonical JSON has no representation for ' + typeof value);
    }
  }

  function decodeComponent(raw) {
    var input = raw.replace(/\\+/g, ' ');
    if (input.indexOf('%') < 0) return input;
    var bytes = [];
    for (var i = 0; i < input.length; i++) {
      var escape = input.slice(i + 1, i + 3);
      if (input[i] === '%' && /^[0-9a-fA-F]{2}$/.test(escape)) {
        bytes.push(parseInt(escape, 16));
        i += 2;
      } else {
        encoder.encode(input[i]).forEach(function (b) { bytes.push(b); });
      }
    }
    return new TextDecoder().decode(new Uint8Array(bytes));
  }

  function encodeRfc3986(value) {
    var out = '';
    encoder.encode(value).forEach(function (byte) {
      var c = String.fromCharCode(byte);
      out += /[A-Za-z0-9\\-._~]/.test(c) ? c : '%' + HEX_UPPER[byte >> 4] + HEX_UPPER[byte & 15];
    });
    return out;
  }

  function compareCodeUnits(a, b) {
    return a < b ? -1 : a > b ? 1 : 0;
  }

  /** The part after '?', without it. */
  function canonicalQuery(rawQuery) {
    if (!rawQuery) return '';
    var pairs = rawQuery.split('&').map(function (part) {
      var eq = part.indexOf('=');
      return eq < 0
        ? [decodeComponent(part), '']
        : [decodeComponent(part.slice(0, eq)), decodeComponent(part.slice(eq + 1))];
    });
    pairs.sort(function (x, y) { return compareCodeUnits(x[0], y[0]) || compareCodeUnits(x[1], y[1]); });
    return pairs.map(function (p) { return encodeRfc3986(p[0]) + '=' + encodeRfc3986(p[1]); }).join('&');
  }

  function hex(bytes) {
    var out = '';
    new Uint8Array(bytes).forEach(function (b) { out += HEX[b >> 4] + HEX[b & 15]; });
    return out;
  }

  function base64(bytes) {
    var binary = '';
    new Uint8Array(bytes).forEach(function (b) { binary += String.fromCharCode(b); });
    return btoa(binary);
  }

  function newNonce() {
    return hex(crypto.getRandomValues(new Uint8Array(12)));
  }

  async function bodyHashOf(bodyString) {
    var digest = await crypto.subtle.digest('SHA-256', encoder.encode(bodyString));
    return base64(digest).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
  }

  async function hmacHex(secretKey, message) {
    var key = await crypto.subtle.importKey('raw', encoder.encode(secretKey), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    return hex(await crypto.subtle.sign('HMAC', key, encoder.encode(message)));
  }

  function takesBody(method) {
    return method === 'POST' || method === 'PATCH';
  }

  /** The exact bytes to send: canonical JSON of the text, the text itself when it is not JSON, '' for none. */
  function bodyStringOf(method, bodyText) {
    if (!takesBody(method) || bodyText === undefined || bodyText === null || bodyText === '') return '';
    if (typeof bodyText !== 'string') throw new TypeError('The docs page signs JSON bodies only');
    var parsed;
    try {
      parsed = JSON.parse(bodyText);
    } catch (err) {
      return bodyText;
    }
    return canonicalJson(parsed);
  }

  /**
   * credentials: {apiKeyId, secretKey, passphrase}; request: {method, url (absolute, or a path with its query),
   * bodyText, timestamp?, nonce?}. Signs the path and query as a browser sends them (the URL parser's form).
   */
  async function signRequest(credentials, request) {
    var method = String(request.method).toUpperCase();
    var url = new URL(request.url, 'http://localhost');
    var bodyString = bodyStringOf(method, request.bodyText);
    var timestamp = request.timestamp || String(Math.floor(Date.now() / 1000));
    var nonce = request.nonce || newNonce();
    var bodyHash = await bodyHashOf(bodyString);
    var message = [SCHEME_TAG, timestamp, nonce, method, url.pathname, canonicalQuery(url.search.slice(1)), bodyHash].join('\\n');
    var headers = { 'Content-Type': 'application/json' };
    headers[HEADERS.apiKeyId] = credentials.apiKeyId;
    headers[HEADERS.valueInfo] = btoa(timestamp + '\\n' + nonce + '\\n' + bodyHash);
    headers[HEADERS.passphrase] = credentials.passphrase;
    headers[HEADERS.signature] = await hmacHex(credentials.secretKey, message);
    return { headers: headers, body: takesBody(method) && bodyString !== '' ? bodyString : undefined };
  }

  function deleteHeader(headers, name) {
    Object.keys(headers).forEach(function (key) {
      if (key.toLowerCase() === name) delete headers[key];
    });
  }

  /**
   * Swagger UI's request, changed in place and returned: every request gets Content-Type: application/json (the
   * API asks it of GET too); GET and DELETE lose any body; signing headers Swagger may have added are dropped;
   * then, unless the operation is public or nobody is authorized, the request is signed and its body replaced by
   * the exact signed bytes. Requests to another origin are never signed.
   */
  async function prepareSwaggerRequest(request, options) {
    var url = new URL(request.url, options.baseUrl);
    var method = String(request.method || 'GET').toUpperCase();
    request.url = url.href;
    request.headers = request.headers || {};
    SIGNING_HEADER_NAMES.concat(['content-type']).forEach(function (name) { deleteHeader(request.headers, name); });
    request.headers['Content-Type'] = 'application/json';
    if (!takesBody(method)) delete request.body;
    // Only this page's own API gets signatures (and the passphrase), whatever document Swagger UI is showing.
    var ownOrigin = url.origin === new URL(options.baseUrl).origin;
    if (!options.credentials || !ownOrigin || options.isPublic(method, url)) return request;
    var signed = await signRequest(options.credentials, { method: method, url: url.href, bodyText: request.body });
    Object.keys(signed.headers).forEach(function (name) { request.headers[name] = signed.headers[name]; });
    if (signed.body === undefined) delete request.body;
    else request.body = signed.body;
    return request;
  }

  function escapeRegExp(text) {
    return text.replace(/[.*+?^$()|[\\]\\\\{}]/g, '\\\\$&');
  }

  /**
   * isPublic(method, url) from the OpenAPI document: an operation is public when its security (or, without one,
   * the document's) requires nothing. Paths not in the document count as signed.
   */
  function publicOperations(spec, specUrl) {
    var server = spec && spec.servers && spec.servers[0] ? spec.servers[0].url : '';
    var base = new URL(server || './', specUrl).pathname.replace(/\\/+$/, '');
    var globalSecurity = (spec && spec.security) || [];
    var publicRoutes = [];
    var paths = (spec && spec.paths) || {};
    Object.keys(paths).forEach(function (template) {
      var pattern = new RegExp('^' + escapeRegExp(base) + template.split(/\\{[^}]*\\}/).map(escapeRegExp).join('[^/]+') + '$');
      Object.keys(paths[template]).forEach(function (method) {
        var operation = paths[template][method];
        if (!operation || typeof operation !== 'object') return;
        var security = operation.security || globalSecurity;
        var open = security.length === 0 || security.some(function (req) { return Object.keys(req).length === 0; });
        if (open) publicRoutes.push({ method: method.toUpperCase(), pattern: pattern });
      });
    });
    var specHref = new URL(specUrl).href;
    return function isPublic(method, url) {
      if (method === 'GET' && url.href === specHref) return true;
      return publicRoutes.some(function (route) { return route.method === method && route.pattern.test(url.pathname); });
    };
  }

  root.${DOCS_SIGNING_GLOBAL} = Object.freeze({
    canonicalJson: canonicalJson,
    canonicalQuery: canonicalQuery,
    signRequest: signRequest,
    prepareSwaggerRequest: prepareSwaggerRequest,
    publicOperations: publicOperations
  });
})(globalThis);
`;

export function docsSigningScript(): StaticAsset {
  return staticAsset(
    'docs-signing.js',
    'text/javascript; charset=utf-8',
    Buffer.from(SIGNING_SCRIPT, 'utf8'),
  );
}
