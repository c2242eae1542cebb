import { staticAsset, type StaticAsset } from './static-asset';

/**
 * The Authorize panel's look, close to Swagger UI's own. Swagger UI's Authorize button and lock icons are hidden:
 * its dialog would send the four signing headers as fixed values, which the gateway refuses (a signature is made
 * per request); the panel is the one way to authorize on this page.
 */
const STYLE = `.tas-authorize {
  box-sizing: border-box;
  max-width: 1460px;
  margin: 0 auto;
  padding: 16px 20px 8px;
  font-family: sans-serif;
  color: #3b4151;
}
.tas-authorize h2 {
  margin: 0 0 8px;
  font-size: 20px;
}
.tas-authorize p {
  margin: 4px 0 10px;
  font-size: 14px;
  line-height: 1.45;
}
.tas-authorize code {
  font-family: monospace;
  font-size: 13px;
}
.tas-authorize form {
  display: flex;
  flex-wrap: wrap;
  gap: 10px;
  align-items: flex-end;
}
.tas-authorize label {
  display: flex;
  flex-direction: column;
  gap: 4px;
  font-size: 12px;
  font-weight: 700;
}
.tas-authorize input {
  min-width: 280px;
  padding: 6px 8px;
  border: 1px solid #d9d9d9;
  border-radius: 4px;
  font: 14px monospace;
}
.tas-authorize button {
  padding: 7px 18px;
  border: 2px solid #49cc90;
  border-radius: 4px;
  background: #fff;
  color: #49cc90;
  font-weight: 700;
  cursor: pointer;
}
.tas-authorize button[type='button'] {
  border-color: #f93e3e;
  color: #f93e3e;
}
.tas-authorize button:disabled {
  opacity: 0.4;
  cursor: default;
}
.tas-authorize [data-state='authorized'] {
  color: #1f8f5f;
  font-weight: 700;
}
.tas-authorize [data-state='error'],
.tas-authorize [data-state='unavailable'] {
  color: #c0392b;
  font-weight: 700;
}
.swagger-ui .auth-wrapper,
.swagger-ui .authorization__btn {
  display: none;
}
`;

export function docsPageStyle(): StaticAsset {
  return staticAsset('docs-page.css', 'text/css; charset=utf-8', Buffer.from(STYLE, 'utf8'));
}
