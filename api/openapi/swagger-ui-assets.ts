import { readFileSync } from 'node:fs';
import path from 'node:path';
import { staticAsset, type StaticAsset } from './static-asset';

/** The files of swagger-ui-dist the docs page needs; everything is served from here, nothing from a CDN. */
const FILES: ReadonlyArray<{ file: string; contentType: string }> = [
  { file: 'swagger-ui.css', contentType: 'text/css; charset=utf-8' },
  { file: 'index.css', contentType: 'text/css; charset=utf-8' },
  { file: 'swagger-ui-bundle.js', contentType: 'text/javascript; charset=utf-8' },
  { file: 'swagger-ui-standalone-preset.js', contentType: 'text/javascript; charset=utf-8' },
  { file: 'favicon-32x32.png', contentType: 'image/png' },
  { file: 'favicon-16x16.png', contentType: 'image/png' },
];

/** Source maps are not served: without this comment, open devtools would ask for them and get a 404. */
const SOURCE_MAP_COMMENT = /\n?\/[*/]# sourceMappingURL=[^\n]*\s*$/;

export function swaggerUiDistDir(): string {
  return path.dirname(require.resolve('swagger-ui-dist/package.json'));
}

export function loadSwaggerUiAssets(dir = swaggerUiDistDir()): StaticAsset[] {
  return FILES.map(({ file, contentType }) => {
    let body = readFileSync(path.join(dir, file));
    if (!contentType.startsWith('image/'))
      body = Buffer.from(body.toString('utf8').replace(SOURCE_MAP_COMMENT, ''), 'utf8');
    return staticAsset(file, contentType, body);
  });
}
