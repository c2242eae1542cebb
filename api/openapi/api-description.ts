import { EMPTY_BODY_HASH, SCHEME_TAG, SIGNING_HEADERS } from '../../shared/signing/request-signature';

export const API_TITLE = 'Trade Aggregation Service API';
export const API_DOCUMENT_VERSION = '1.0.0';

/** `info.description` of /openapi.json: what a client needs before the first request (Markdown). */
export const API_DESCRIPTION = `
Best aggregated routes and unsigned swap calldata on EVM chains (single-chain and cross-chain), transaction and
transfer status, enabled chains and tokens, and limit orders and DCA strategies that the service executes on-chain.
The service never broadcasts a swap and never holds funds or keys.

## Requests and responses

- Every request carries \`Content-Type: application/json\`, including \`GET\`, \`DELETE\` and public endpoints.
  \`POST\` and \`PATCH\` send a JSON object body; \`GET\` and \`DELETE\` send no body (not even \`{}\`).
- Every success is HTTP 200 in the envelope \`{success: true, data, meta}\`; errors are
  \`{success: false, error: {code, message, details}, meta}\`. Branch on \`success\`, never on \`data\`.
- The API gateway can answer itself with a bare \`{message}\` body (401, 403, 413, 429, 500, 503); tell the two
  kinds apart by the presence of the \`success\` key. Every response carries an \`apigw-requestid\` header.
- \`GET /openapi.json\` and \`GET /docs\` are public and return this document and an HTML page, not the envelope.

## Authentication

Every endpoint is signed except \`POST /accounts\`, \`GET /openapi.json\` and \`GET /docs\`. \`POST /accounts\`
returns the API key ID and the secret key (once); the account's password is the passphrase. A signed request
sends four headers, all required together:

| Header | Value |
|-|-|
| \`${SIGNING_HEADERS.apiKeyId}\` | the API key ID (UUID) |
| \`${SIGNING_HEADERS.valueInfo}\` | standard base64 (\`=\` padded, one line) of \`timestamp\` LF \`nonce\` LF \`bodyHash\` |
| \`${SIGNING_HEADERS.passphrase}\` | the passphrase |
| \`${SIGNING_HEADERS.signature}\` | lowercase hex (64 characters) HMAC-SHA256 of the signed message |

Building them, anew for every attempt (retries included):

1. \`bodyString\` = canonical JSON of the body (keys sorted at every level by UTF-16 code units, array order
   kept, no whitespace, numbers as JavaScript's \`JSON.stringify\` writes them, non-ASCII as raw UTF-8); the
   empty string for \`GET\`/\`DELETE\`. Send exactly these bytes as the body.
2. \`bodyHash\` = SHA-256 of \`bodyString\`, base64url without padding (43 characters); for an empty body
   \`${EMPTY_BODY_HASH}\`.
3. \`timestamp\` = Unix time in seconds; \`nonce\` = 24 hex characters (12 secure random bytes).
4. \`query\` = canonical query: parameters decoded, sorted by key then value, each key and value
   percent-encoded per RFC 3986 (only \`A-Z a-z 0-9 - . _ ~\` kept), joined with \`=\` and \`&\`; empty when
   there is none.
5. \`message\` = seven lines joined with LF, no trailing newline: \`${SCHEME_TAG}\`, \`timestamp\`, \`nonce\`,
   the uppercase method, the URL path starting with \`/api/v1\` (no query), \`query\`, \`bodyHash\`.
6. \`${SIGNING_HEADERS.signature}\` = hex HMAC-SHA256 of \`message\` (UTF-8) keyed with the secret key string
   exactly as returned (UTF-8 bytes, not decoded).

The server accepts a request only if the key is active and the passphrase matches, the signature matches the
request it received (method, path, canonical query, \`bodyHash\`), the timestamp is within 300 seconds of server
time, the nonce was not used in the last 5 minutes, and the received body hashes to \`bodyHash\`. A missing
header gives the gateway's \`401 {message: Unauthorized}\`; any other failure of the first four checks gives
\`403 {message: Forbidden}\` without saying which; a body that does not match gives \`403 FORBIDDEN\`
\`Invalid body hash\` in the envelope. Each set of headers works once, for one request.

Limit orders and DCA strategies belong to the API key that created them; another key's IDs answer 404.

## Webhooks and events

\`POST /webhooks\` registers a URL; each event of the key's resources is \`POST\`ed to it as
\`{"id","type","createdAt","data"}\` (\`data\`: the resource as its GET answers it) with \`x-tas-event-id\`,
\`x-tas-timestamp\` and \`x-tas-signature\` (lowercase hex HMAC-SHA256 under the webhook's \`whsec_\` secret of
\`<timestamp>.<raw body>\`). Verify the raw body, answer 2xx within 5 s, and deduplicate by the event id: delivery
is at least once, in order per resource, retried for 25 hours. \`GET /events\` streams the same bodies as
Server-Sent Events; reconnect with a new signature and \`Last-Event-ID\`.
`.trim();
