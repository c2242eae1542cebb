import { DOCS_SIGNING_GLOBAL } from './docs-signing-script';
import { staticAsset, type StaticAsset } from './static-asset';

/** Element ids of the Authorize panel, shared by the page's markup and this script. */
export const AUTHORIZE_PANEL = {
  form: 'tas-authorize-form',
  apiKeyId: 'tas-api-key-id',
  secretKey: 'tas-secret-key',
  passphrase: 'tas-passphrase',
  logout: 'tas-logout',
  status: 'tas-authorize-status',
} as const;

/**
 * Starts Swagger UI and the Authorize panel. It lives in its own file rather than inline so the page runs under
 * `script-src 'self'`. The spec URL comes from the page (relative), so the page works behind any path prefix;
 * `validatorUrl: null` keeps Swagger UI from sending the document to its public validator.
 *
 * The credentials live in one closure variable and nowhere else: not in storage or cookies, not on `window`, not
 * in the DOM (the inputs are cleared once read). `showMutatedRequest: false` keeps the signed headers, passphrase
 * included, out of the curl command Swagger UI renders.
 */
const INIT_SCRIPT = `(function () {
  'use strict';
  var signing = window.${DOCS_SIGNING_GLOBAL};
  var ids = ${JSON.stringify(AUTHORIZE_PANEL)};
  var byId = function (id) { return document.getElementById(id); };
  var form = byId(ids.form);
  var inputs = [byId(ids.apiKeyId), byId(ids.secretKey), byId(ids.passphrase)];
  var logout = byId(ids.logout);
  var status = byId(ids.status);
  var UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  var credentials = null;

  function show(text, state) {
    status.textContent = text;
    status.setAttribute('data-state', state);
  }

  function render() {
    logout.disabled = !credentials;
    if (credentials) show('Authorized: signing requests with API key ' + credentials.apiKeyId + '.', 'authorized');
    else show('Not authorized: signed endpoints go out unsigned and the gateway answers 401.', 'anonymous');
  }

  // WebCrypto exists only in secure contexts (https, or http on localhost).
  var canSign = Boolean(window.isSecureContext && window.crypto && window.crypto.subtle);
  if (!canSign) {
    inputs.concat([form.querySelector('button[type=submit]')]).forEach(function (el) { el.disabled = true; });
    show('This browser offers WebCrypto only on https or localhost pages, so it cannot sign here: open the page over https.', 'unavailable');
  } else {
    render();
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var apiKeyId = inputs[0].value.trim();
    var secretKey = inputs[1].value.trim();
    var passphrase = inputs[2].value;
    if (!apiKeyId || !secretKey || !passphrase) {
      show('Enter the API key ID, the secret key and the passphrase.', 'error');
      return;
    }
    if (!UUID.test(apiKeyId)) {
      show('The API key ID is the UUID that POST /accounts returned as apiKey.', 'error');
      return;
    }
    credentials = Object.freeze({ apiKeyId: apiKeyId, secretKey: secretKey, passphrase: passphrase });
    form.reset();
    render();
  });

  logout.addEventListener('click', function () {
    credentials = null;
    form.reset();
    render();
  });

  var root = document.getElementById('swagger-ui');
  var specUrl = new URL(root.getAttribute('data-spec-url'), window.location.href).href;
  var seenSpec;
  var isPublic = signing.publicOperations({}, specUrl);
  function publicCheck() {
    var spec = window.ui && window.ui.specSelectors.specJson();
    if (spec && spec !== seenSpec) {
      seenSpec = spec;
      isPublic = signing.publicOperations(spec.toJS(), specUrl);
    }
    return isPublic;
  }

  window.ui = SwaggerUIBundle({
    url: specUrl,
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    showMutatedRequest: false,
    // Swagger UI awaits the returned promise before it sends the request.
    requestInterceptor: function (request) {
      return signing.prepareSwaggerRequest(request, {
        credentials: credentials,
        isPublic: publicCheck(),
        baseUrl: window.location.href
      });
    },
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: 'StandaloneLayout'
  });
})();
`;

export function docsInitScript(): StaticAsset {
  return staticAsset('docs-init.js', 'text/javascript; charset=utf-8', Buffer.from(INIT_SCRIPT, 'utf8'));
}
