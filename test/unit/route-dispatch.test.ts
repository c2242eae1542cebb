import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import Koa from 'koa';
import type { ApiState } from '../../api/http/api-state';
import { routeDispatcher } from '../../api/http/route-dispatch';

/** A Koa app with the api's router options and the dispatcher; answers what matched, or 404 NONE. */
async function serve(): Promise<{ url: string; close(): Promise<void> }> {
  const router = new Router<ApiState>({ prefix: '/api/v1', sensitive: true, strict: true });
  const answer =
    (name: string) =>
    async (ctx: Koa.ParameterizedContext<ApiState>): Promise<void> => {
      ctx.body = { route: name, params: ctx.state.params };
    };
  const first: Koa.Middleware<ApiState> = async (ctx, next) => {
    ctx.set('x-chain', 'first');
    await next();
  };
  router.register('/chains', ['GET'], [first, answer('chains')]);
  router.register('/limit-order', ['POST'], [answer('create')]);
  router.register('/limit-order/:id', ['GET'], [answer('one')]);
  router.register('/webhooks/:id/deliveries', ['GET'], [answer('deliveries')]);
  const app = new Koa<ApiState>();
  app.use(async (ctx, next) => {
    ctx.state = {} as ApiState;
    await next();
  });
  app.use(routeDispatcher(router));
  app.use(async (ctx) => {
    ctx.status = 404;
    ctx.body = { route: 'NONE' };
  });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('route dispatch (the router compiled once)', () => {
  let server: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    server = await serve();
  });
  afterAll(async () => {
    await server.close();
  });

  const get = async (path: string, method = 'GET') => {
    const res = await fetch(`${server.url}${path}`, { method });
    const text = await res.text();
    return {
      status: res.status,
      chain: res.headers.get('x-chain'),
      body: text ? JSON.parse(text) : undefined,
    };
  };

  it('runs the whole middleware chain of a route without parameters', async () => {
    expect(await get('/api/v1/chains')).toEqual({
      status: 200,
      chain: 'first',
      body: { route: 'chains', params: {} },
    });
  });

  it('decodes path parameters as the router does, a malformed escape kept as sent', async () => {
    expect((await get('/api/v1/limit-order/abc%20def')).body).toEqual({
      route: 'one',
      params: { id: 'abc def' },
    });
    expect((await get('/api/v1/limit-order/%ZZ')).body).toEqual({ route: 'one', params: { id: '%ZZ' } });
    expect((await get('/api/v1/webhooks/w1/deliveries')).body).toEqual({
      route: 'deliveries',
      params: { id: 'w1' },
    });
  });

  it('serves HEAD with the GET route, and nothing for another method', async () => {
    expect(await get('/api/v1/chains', 'HEAD')).toMatchObject({ status: 200, chain: 'first' });
    expect((await get('/api/v1/chains', 'POST')).body).toEqual({ route: 'NONE' });
    expect((await get('/api/v1/limit-order', 'GET')).body).toEqual({ route: 'NONE' });
  });

  it('matches exactly: no trailing slash, case-sensitive, no empty parameter, no extra segment', async () => {
    for (const path of [
      '/api/v1/chains/',
      '/api/v1/Chains',
      '/API/v1/chains',
      '/api/v1/limit-order/',
      '/api/v1/limit-order/a/b',
      '/chains',
    ]) {
      expect({ path, body: (await get(path)).body }).toEqual({ path, body: { route: 'NONE' } });
    }
  });
});

describe('route dispatch refuses overlapping routes at start (it runs one match, the router ran all)', () => {
  const router = (paths: [string, string[]][]) => {
    const r = new Router<ApiState>({ prefix: '/api/v1', sensitive: true, strict: true });
    for (const [path, methods] of paths) r.register(path, methods, [async () => undefined]);
    return r;
  };

  it('refuses a fixed path a parameter route of the same method also matches, in either order', () => {
    expect(() =>
      routeDispatcher(
        router([
          ['/limit-order/:id', ['GET']],
          ['/limit-order/count', ['GET']],
        ]),
      ),
    ).toThrow('routes overlap: HEAD,GET /api/v1/limit-order/count and /api/v1/limit-order/:id');
    expect(() =>
      routeDispatcher(
        router([
          ['/limit-order/count', ['GET']],
          ['/limit-order/:id', ['GET']],
        ]),
      ),
    ).toThrow('routes overlap');
  });

  it('refuses one path registered twice for a method, and accepts routes that differ by method or by path', () => {
    expect(() =>
      routeDispatcher(
        router([
          ['/chains', ['GET']],
          ['/chains', ['GET', 'POST']],
        ]),
      ),
    ).toThrow('routes overlap: HEAD,GET /api/v1/chains and /api/v1/chains');
    expect(() =>
      routeDispatcher(
        router([
          ['/limit-order', ['POST']],
          ['/limit-order/:id', ['GET', 'DELETE']],
          ['/limit-order/count', ['POST']],
          ['/webhooks/:id/deliveries', ['GET']],
          ['/webhooks/:id', ['GET']],
        ]),
      ),
    ).not.toThrow();
  });
});
