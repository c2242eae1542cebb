#!/usr/bin/env python3
"""The trade aggregation API from Python 3 with the standard library only: signing, a quote and a limit order.

Environment:
  TAS_BASE_URL      base URL ending in /api/v1 (default http://127.0.0.1:8080/api/v1, what `npm start` serves)
  TAS_API_KEY_ID, TAS_SECRET_KEY, TAS_PASSPHRASE
                    an existing account's credentials; without them the script creates an account (POST /accounts)
  MAKER_ADDRESS     optional maker wallet (EIP-55): reads its order authorization for WETH -> USDC on chain 1
  PAIR_SIGNATURE    optional, with MAKER_ADDRESS: the maker's EIP-712 pair signature for WETH -> USDC (the
                    `typedData` of GET /order-authorization, signed by the maker's wallet; the order is sent with
                    that typed data's fee cap, `maxFeeBps`). It is granted to one API
                    key (the message's `integrator`): set the TAS_* credentials of the account it was signed for,
                    since an order another key creates with it fails BAD_SIGNATURE at execution. Then the script
                    also creates a limit order far above the market (it never executes), reads it back, changes
                    its priceTrigger and price, cancels it and reads it once more.

Steps: POST /accounts, GET /chains, GET /tokens?chainId=1, POST /quotes (1 WETH -> USDC on chain 1),
GET /order-authorization, GET /limit-order?status=pending&chainId=1, then the limit order's life.
Each response is printed after a line `--- METHOD PATH -> HTTP STATUS`. The first failure ends the script with
exit code 1 and one line on stderr: `error: CODE (HTTP status): message [details] (request id X)`.
The secret key and the passphrase are never printed.
"""

import base64
import hashlib
import hmac
import json
import os
import secrets
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

BASE_URL = os.environ.get("TAS_BASE_URL", "http://127.0.0.1:8080/api/v1").rstrip("/")
# The signed path starts with the base URL's own path (/api/v1), not with the endpoint.
BASE_PATH = urllib.parse.urlsplit(BASE_URL).path
SCHEME_TAG = "SVC-HMAC-SHA256-V2"
# The gateway gives up after about 30 s; waiting a little longer sees its answer instead of a local timeout.
TIMEOUT_SECONDS = 35
MAX_SAFE_INTEGER = 9007199254740991
# A limit order price no devnet or real market reaches: the order stays pending until it is cancelled.
UNREACHABLE_PRICE = "100000"
UNREACHABLE_PRICE_PATCHED = "120000"
# Gateway answers carry no code: named after their status, as the SDK names them.
GATEWAY_CODES = {
    401: "UNAUTHORIZED",
    403: "FORBIDDEN",
    429: "TOO_MANY_REQUESTS",
    500: "INTERNAL_SERVER_ERROR",
    503: "SERVICE_UNAVAILABLE",
}


class ApiError(Exception):
    def __init__(self, status, code, message, details, request_id):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.request_id = request_id

    def line(self):
        details = "; ".join(
            (f"{d.get('field')}: " if d.get("field") else "") + str(d.get("message")) for d in self.details
        )
        return (
            f"error: {self.code} (HTTP {self.status}): {self.message}"
            + (f" [{details}]" if details else "")
            + f" (request id {self.request_id or 'none'})"
        )


def _check_portable(value, where="body"):
    """Refuses what Python and the server's JavaScript would serialize differently (spec, "Canonical JSON").

    json.dumps writes 1.0 as `1.0` and 1e16 as `1e+16` where JSON.stringify writes `1` and `10000000000000000`,
    so a float can make the bodyHash differ from the server's. Keep bodies to strings, integers and booleans: the
    spec's amounts and prices are decimal strings anyway (the DCA endpoints, which want JSON numbers, are not used
    here).
    """
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return
    if isinstance(value, int):
        if abs(value) > MAX_SAFE_INTEGER:
            raise ValueError(f"{where}: integer outside +/-{MAX_SAFE_INTEGER}")
        return
    if isinstance(value, float):
        raise ValueError(f"{where}: send {value!r} as a decimal string or an integer, not a float")
    if isinstance(value, list):
        for i, item in enumerate(value):
            _check_portable(item, f"{where}[{i}]")
        return
    if isinstance(value, dict):
        for key, item in value.items():
            # Python sorts keys by code point, JavaScript by UTF-16 code unit: the same for ASCII keys only.
            if not isinstance(key, str) or not key.isascii() or key.isdigit() or key == "__proto__":
                raise ValueError(f"{where}: key {key!r} is not portable (ASCII, not numeric, not __proto__)")
            _check_portable(item, f"{where}.{key}")
        return
    raise ValueError(f"{where}: {type(value).__name__} is not JSON")


def canonical_json(value):
    """Keys sorted at every level, no whitespace, non-ASCII as raw UTF-8."""
    _check_portable(value)
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _utf16(text):
    # Big-endian UTF-16 bytes compare exactly as the spec's UTF-16 code units do.
    return text.encode("utf-16-be", "surrogatepass")


def canonical_query(raw):
    """The spec's canonical query of the part after `?` (without the `?`)."""
    if not raw:
        return ""
    pairs = []
    for part in raw.split("&"):
        key, _, value = part.partition("=")
        pairs.append((urllib.parse.unquote_plus(key), urllib.parse.unquote_plus(value)))
    pairs.sort(key=lambda kv: (_utf16(kv[0]), _utf16(kv[1])))
    # quote() keeps A-Z a-z 0-9 and safe, and writes every other UTF-8 byte as %XX in uppercase: RFC 3986.
    return "&".join(
        f"{urllib.parse.quote(k, safe='-._~')}={urllib.parse.quote(v, safe='-._~')}" for k, v in pairs
    )


def body_hash(body_string):
    digest = hashlib.sha256(body_string.encode("utf-8")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def signed_headers(credentials, method, path, query, body_string):
    timestamp = str(int(time.time()))
    nonce = secrets.token_hex(12)
    hashed = body_hash(body_string)
    message = "\n".join([SCHEME_TAG, timestamp, nonce, method, path, canonical_query(query), hashed])
    signature = hmac.new(
        credentials["secretKey"].encode("utf-8"), message.encode("utf-8"), hashlib.sha256
    ).hexdigest()
    value_info = base64.b64encode(f"{timestamp}\n{nonce}\n{hashed}".encode("utf-8")).decode("ascii")
    return {
        "x-api-key-id": credentials["apiKeyId"],
        "x-value-info": value_info,
        "x-passphrase": credentials["passphrase"],
        "x-signature": signature,
    }


def _printable(path, envelope):
    if path == "/accounts" and isinstance(envelope.get("data"), dict) and "secretKey" in envelope["data"]:
        return {**envelope, "data": {**envelope["data"], "secretKey": "(hidden)"}}
    return envelope


def call(method, path, params=None, body=None, credentials=None):
    """Sends one request (signed when credentials are given) and returns `data`; raises ApiError otherwise.

    `params` is a list of (name, value) in any order: the URL keeps that order, the signature covers the
    canonical query, and the server canonicalizes what it receives the same way.
    """
    query = urllib.parse.urlencode(params or [], quote_via=urllib.parse.quote, safe="-._~")
    path_and_query = path + (f"?{query}" if query else "")
    # POST and PATCH send exactly the signed bytes; GET and DELETE send no body and sign the empty string.
    body_string = canonical_json(body if body is not None else {}) if method in ("POST", "PATCH") else ""
    headers = {"Content-Type": "application/json"}
    if credentials:
        headers.update(signed_headers(credentials, method, BASE_PATH + path, query, body_string))
    request = urllib.request.Request(
        BASE_URL + path_and_query,
        data=body_string.encode("utf-8") if body_string else None,
        headers=headers,
        method=method,
    )
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
            status, response_headers, text = response.status, response.headers, response.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        status, response_headers, text = error.code, error.headers, error.read().decode("utf-8", "replace")
    except (urllib.error.URLError, TimeoutError) as error:
        raise ApiError(0, "NETWORK_ERROR", f"{method} {path_and_query}: {error}", [], None) from None

    header_request_id = response_headers.get("apigw-requestid")
    try:
        envelope = json.loads(text)
    except ValueError:
        envelope = None
    print(f"--- {method} {path_and_query} -> HTTP {status}")
    print(json.dumps(_printable(path, envelope), ensure_ascii=False) if envelope is not None else text)
    sys.stdout.flush()

    if not isinstance(envelope, dict):
        raise ApiError(status, "HTTP", "the answer is not JSON", [], header_request_id)
    request_id = (envelope.get("meta") or {}).get("requestId") or header_request_id
    if status == 200 and envelope.get("success") is True:
        return envelope.get("data")
    if "success" not in envelope:
        # A gateway answer: {"message": ...} only.
        code = GATEWAY_CODES.get(status, f"HTTP_{status}")
        raise ApiError(status, code, envelope.get("message", ""), [], request_id)
    error = envelope.get("error") or {}
    raise ApiError(
        status, error.get("code", "HTTP"), error.get("message", ""), error.get("details") or [], request_id
    )


def credentials_from_env_or_new_account():
    env = {k: os.environ.get(f"TAS_{k.upper()}") for k in ("api_key_id", "secret_key", "passphrase")}
    if all(env.values()):
        print("--- using the account of TAS_API_KEY_ID")
        return {"apiKeyId": env["api_key_id"], "secretKey": env["secret_key"], "passphrase": env["passphrase"]}
    password = secrets.token_urlsafe(18)
    # Never retried automatically: every success creates another account.
    name = f"python-example-{secrets.token_hex(4)}"
    created = call("POST", "/accounts", body={"name": name, "password": password})
    return {"apiKeyId": created["apiKey"], "secretKey": created["secretKey"], "passphrase": password}


def token_by_symbol(tokens, symbol):
    # Symbols are not unique and may carry a suffix: take the first exact match.
    for token in tokens:
        if token.get("symbol") == symbol:
            return token
    raise ApiError(200, "EXAMPLE", f"chain 1 lists no {symbol}", [], None)


def limit_order_life(credentials, maker, signature, max_fee_bps, weth, usdc):
    expired = str(int(time.time() * 1000) + 24 * 3600 * 1000)
    # Never retried automatically: every success creates another order (after a timeout, list orders first).
    order = call(
        "POST",
        "/limit-order",
        body={
            "accountTo": maker,
            "chainId": 1,
            "inTokenAddress": weth["address"],
            "outTokenAddress": usdc["address"],
            "tokenASymbol": weth["symbol"],
            "tokenBSymbol": usdc["symbol"],
            "amount": "0.1",
            "priceTrigger": UNREACHABLE_PRICE,
            "price": UNREACHABLE_PRICE,
            "expired": expired,
            "gasPrice": "30",
            "slippage": "1",
            "signature": signature,
            "maxFeeBps": max_fee_bps,
        },
        credentials=credentials,
    )
    path = f"/limit-order/{urllib.parse.quote(order['id'], safe='')}"
    call("GET", path, credentials=credentials)
    # price goes with priceTrigger: the service never syncs the two.
    call(
        "PATCH",
        path,
        body={"priceTrigger": UNREACHABLE_PRICE_PATCHED, "price": UNREACHABLE_PRICE_PATCHED},
        credentials=credentials,
    )
    call("DELETE", path, credentials=credentials)
    # A cancelled order stays readable.
    final = call("GET", path, credentials=credentials)
    if final.get("status") != "cancelled":
        raise ApiError(200, "EXAMPLE", f"order {order['id']} is {final.get('status')}, not cancelled", [], None)


def main():
    credentials = credentials_from_env_or_new_account()
    call("GET", "/chains", credentials=credentials)
    tokens = call("GET", "/tokens", params=[("chainId", 1)], credentials=credentials)["tokens"]
    weth, usdc = token_by_symbol(tokens, "WETH"), token_by_symbol(tokens, "USDC")
    call(
        "POST",
        "/quotes",
        body={
            "mode": "single-chain",
            "params": {
                "chainId": 1,
                "inTokenAddress": weth["address"],
                "outTokenAddress": usdc["address"],
                "amount": "1",
                "gasPrice": "30",
                "slippage": "1",
            },
        },
        credentials=credentials,
    )

    maker = os.environ.get("MAKER_ADDRESS")
    authorization = None
    if maker:
        authorization = call(
            "GET",
            "/order-authorization",
            params=[
                ("chainId", 1),
                ("accountTo", maker),
                ("tokenIn", weth["address"]),
                ("tokenOut", usdc["address"]),
            ],
            credentials=credentials,
        )
    else:
        print("--- GET /order-authorization skipped: set MAKER_ADDRESS to a maker wallet address to read it")

    # Sent in this order; signed as chainId=1&status=pending.
    call("GET", "/limit-order", params=[("status", "pending"), ("chainId", 1)], credentials=credentials)

    signature = os.environ.get("PAIR_SIGNATURE")
    if maker and signature:
        # The fee cap the signature was made for: the one GET /order-authorization offered to sign.
        max_fee_bps = authorization["typedData"]["message"]["maxFeeBps"]
        limit_order_life(credentials, maker, signature, max_fee_bps, weth, usdc)
    else:
        print("--- limit order skipped: set MAKER_ADDRESS and PAIR_SIGNATURE to create, change and cancel one")


if __name__ == "__main__":
    try:
        main()
    except ApiError as failure:
        print(failure.line(), file=sys.stderr)
        sys.exit(1)
