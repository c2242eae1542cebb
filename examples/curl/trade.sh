#!/usr/bin/env bash
# The trade aggregation API from a shell, with bash, curl (7.55 or later) and openssl only (no jq, no python):
# creates an API account, then signs every request by hand as the spec's "Authentication" section describes it.
#
#   TAS_BASE_URL   base URL ending in /api/v1 (default http://127.0.0.1:8080/api/v1, what `npm start` serves)
#   MAKER_ADDRESS  optional maker wallet (EIP-55); when set, the script also reads its order authorization
#
# Steps: POST /accounts, GET /chains, GET /tokens?chainId=1, POST /quotes (1 WETH -> USDC on chain 1),
# GET /order-authorization (with MAKER_ADDRESS), GET /limit-order?status=pending&chainId=1.
# Each response is printed after a line `--- METHOD PATH -> HTTP STATUS`; the script stops with exit code 1 at
# the first answer that is not HTTP 200. The account's secret key is never printed.
#
# Limits of doing this in shell (the Python and TypeScript examples have none of them):
# - Request bodies are written by hand, already in canonical JSON (keys sorted at every level, no whitespace,
#   strings only where the spec allows decimal strings). The signed bodyHash covers these exact bytes, and curl
#   sends them unchanged (--data-binary).
# - canonical_query() handles parameters made only of RFC 3986 unreserved characters (A-Z a-z 0-9 - . _ ~), which
#   is all this API's query parameters need (integers, statuses, 0x addresses); it refuses anything else.
# - JSON answers are read with sed, which is enough for the flat fields taken here (apiKey, secretKey, token
#   addresses), not a JSON parser.
# - `openssl dgst -hmac` takes the secret key as an argument, so other users of a shared machine can see it in the
#   process list for an instant: run this on your own machine only. curl reads the credential headers from a
#   private file, not from its arguments.
set -euo pipefail

BASE_URL="${TAS_BASE_URL:-http://127.0.0.1:8080/api/v1}"
BASE_URL="${BASE_URL%/}"
# The signed path starts with the base URL's own path (/api/v1), not with the endpoint.
after_scheme="${BASE_URL#*://}"
BASE_PATH="/${after_scheme#*/}"
SCHEME_TAG='SVC-HMAC-SHA256-V2'

for tool in curl openssl sed grep sort; do
  command -v "$tool" >/dev/null || { echo "error: $tool is required" >&2; exit 1; }
done

WORK_DIR="$(mktemp -d)"
chmod 700 "$WORK_DIR"
trap 'rm -rf "$WORK_DIR"' EXIT

fail() {
  echo "error: $*" >&2
  exit 1
}

# SHA-256 of stdin, base64url without padding (43 characters).
body_hash() {
  openssl dgst -sha256 -binary | openssl base64 -A | tr '+/' '-_' | tr -d '='
}

# Sorts `key=value` parameters by key, then value; every character must already be unreserved (see above).
canonical_query() {
  local query="$1"
  [ -z "$query" ] && return 0
  if ! printf '%s' "$query" | grep -Eq '^[A-Za-z0-9._~=&-]*$'; then
    fail "canonical_query handles only unreserved characters; encode and sort as the spec says: $query"
  fi
  printf '%s' "$query" | tr '&' '\n' | sed '/=/!s/$/=/' | LC_ALL=C sort -t '=' -k1,1 -k2 | paste -sd '&' -
}

# The value of a flat string field of a JSON answer ("field":"value" without escapes), first occurrence.
json_string() {
  sed -n "s/.*\"$1\":\"\\([^\"]*\\)\".*/\\1/p" | head -n 1
}

# Sends one request and prints the answer; exits when it is not HTTP 200.
#   call METHOD PATH_AND_QUERY [BODY]   (signed)
#   PUBLIC=1 call POST /accounts BODY   (unsigned)
call() {
  local method="$1" path_and_query="$2" body="${3:-}"
  local path="${path_and_query%%\?*}" query=''
  [ "$path" != "$path_and_query" ] && query="${path_and_query#*\?}"
  local headers="$WORK_DIR/headers" response="$WORK_DIR/response" response_headers="$WORK_DIR/response-headers"
  # Every request carries Content-Type: application/json, even GET and DELETE.
  printf 'Content-Type: application/json\n' >"$headers"
  if [ "${PUBLIC:-0}" != 1 ]; then
    local timestamp nonce hash canonical message signature value_info
    timestamp="$(date +%s)"
    nonce="$(openssl rand -hex 12)"
    # GET and DELETE sign the empty string (their body is empty); POST and PATCH the exact body bytes.
    hash="$(printf '%s' "$body" | body_hash)"
    canonical="$(canonical_query "$query")"
    message="$(printf '%s\n%s\n%s\n%s\n%s\n%s\n%s' "$SCHEME_TAG" "$timestamp" "$nonce" "$method" \
      "$BASE_PATH$path" "$canonical" "$hash")"
    # openssl prints `HMAC-SHA2-256(stdin)= <hex>` (the prefix differs between versions): keep the hex.
    signature="$(printf '%s' "$message" | openssl dgst -sha256 -hmac "$SECRET_KEY" | sed 's/^.*= *//')"
    value_info="$(printf '%s\n%s\n%s' "$timestamp" "$nonce" "$hash" | openssl base64 -A)"
    {
      printf 'x-api-key-id: %s\n' "$API_KEY_ID"
      printf 'x-passphrase: %s\n' "$PASSPHRASE"
      printf 'x-value-info: %s\n' "$value_info"
      printf 'x-signature: %s\n' "$signature"
    } >>"$headers"
  fi
  local args=(-sS -X "$method" -H "@$headers" -o "$response" -D "$response_headers" -w '%{http_code}')
  # GET and DELETE send no body at all (not even {}).
  [ -n "$body" ] && args+=(--data-binary "$body")
  local status
  status="$(curl "${args[@]}" "$BASE_URL$path_and_query")" || fail "$method $path_and_query: no HTTP answer"
  echo "--- $method $path_and_query -> HTTP $status"
  if [ "$path" = /accounts ]; then
    # The secret key is shown once by the API, and never by this script.
    sed 's/"secretKey":"[^"]*"/"secretKey":"(hidden)"/' "$response"
  else
    cat "$response"
  fi
  echo
  if [ "$status" != 200 ]; then
    local request_id
    request_id="$({ grep -i '^apigw-requestid:' "$response_headers" || true; } | head -n 1 | sed 's/^[^:]*: *//' \
      | tr -d '\r')"
    # Service errors carry error.code and error.message; gateway answers only {"message": ...}.
    local code message
    code="$(json_string code <"$response")"
    if [ -z "$code" ]; then
      case "$status" in
        401) code=UNAUTHORIZED ;; 403) code=FORBIDDEN ;; 429) code=TOO_MANY_REQUESTS ;;
        500) code=INTERNAL_SERVER_ERROR ;; 503) code=SERVICE_UNAVAILABLE ;; *) code="HTTP_$status" ;;
      esac
    fi
    message="$(json_string message <"$response")"
    fail "$method $path_and_query: $code (HTTP $status): ${message:-no message} (request id ${request_id:-none})"
  fi
}

# 1. An account: public, unsigned. The password becomes the passphrase.
PASSPHRASE="$(openssl rand -hex 16)"
PUBLIC=1 call POST /accounts "{\"name\":\"curl-example-$(openssl rand -hex 4)\",\"password\":\"$PASSPHRASE\"}"
API_KEY_ID="$(json_string apiKey <"$WORK_DIR/response")"
SECRET_KEY="$(json_string secretKey <"$WORK_DIR/response")"
[ -n "$API_KEY_ID" ] && [ -n "$SECRET_KEY" ] || fail 'POST /accounts returned no apiKey/secretKey'
: >"$WORK_DIR/response"

# 2. Enabled chains and chain 1's tokens.
call GET /chains
call GET '/tokens?chainId=1'
# One token entry per {...}; take the address of the first entry with exactly that symbol.
token_address() {
  { grep -o "{[^{}]*\"symbol\":\"$1\"[^{}]*}" "$WORK_DIR/response" || true; } | head -n 1 | json_string address
}
WETH="$(token_address WETH)"
USDC="$(token_address USDC)"
[ -n "$WETH" ] && [ -n "$USDC" ] || fail 'chain 1 lists no WETH or no USDC'

# 3. A quote for 1 WETH. The body is canonical JSON already: keys in ascending order at every level, no spaces.
QUOTE_BODY='{"mode":"single-chain","params":{"amount":"1","chainId":1,"gasPrice":"30",'
QUOTE_BODY+="\"inTokenAddress\":\"$WETH\",\"outTokenAddress\":\"$USDC\",\"slippage\":\"1\"}}"
call POST /quotes "$QUOTE_BODY"

# 4. What a maker must approve and sign before a limit order selling WETH for USDC.
if [ -n "${MAKER_ADDRESS:-}" ]; then
  call GET "/order-authorization?tokenOut=$USDC&tokenIn=$WETH&chainId=1&accountTo=$MAKER_ADDRESS"
else
  echo '--- GET /order-authorization skipped: set MAKER_ADDRESS to a maker wallet address to read it'
fi

# 5. The account's pending orders on chain 1. The URL keeps this order; the signature covers the sorted form
#    chainId=1&status=pending.
call GET '/limit-order?status=pending&chainId=1'
