import type { BrowserContext, Locator, Page, Request, Response } from 'playwright-core';
import { canonicalJson } from '../../../shared/signing/canonical-json';
import { describeWithChromium } from '../../helpers/chromium';
import { crossingOrder, type CrossingOrder } from '../../helpers/crossing-order';
import type { EmbeddedService } from '../../helpers/embedded-service';
import { balanceOf, token } from '../../helpers/maker';

/** The docs page's maker: manifest chain 1 accounts[2] (plan: SDK 0, CLI 1, docs page 2, examples 3). */
const MAKER_ACCOUNT = 2;
const ORDER_TIMEOUT_MS = 90_000;
const SIGNING_HEADERS = ['x-api-key-id', 'x-value-info', 'x-passphrase', 'x-signature'];

/** What the page shows for one execution: the status and the parsed response body. */
interface Shown {
  status: number;
  body: unknown;
}

interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  postData: string | null;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function field(value: unknown, ...keys: string[]): unknown {
  let at = value;
  for (const key of keys) at = isRecord(at) ? at[key] : undefined;
  return at;
}

function text(value: unknown, ...keys: string[]): string {
  const found = field(value, ...keys);
  if (typeof found !== 'string')
    throw new Error(`no string at ${keys.join('.')} in ${JSON.stringify(value)}`);
  return found;
}

/** One operation of Swagger UI, used the way a person does: expand, "Try it out", fill, "Execute", read. */
class SwaggerOperation {
  private readonly block: Locator;

  constructor(
    private readonly page: Page,
    operationDomId: string,
    private readonly method: string,
    private readonly path: RegExp,
  ) {
    this.block = page.locator(`#operations-${operationDomId}`);
  }

  async tryItOut(): Promise<void> {
    await this.block.locator('.opblock-summary').first().click();
    await this.block.getByRole('button', { name: 'Try it out' }).click();
  }

  async fillBody(json: string): Promise<void> {
    await this.block.locator('textarea.body-param__text').fill(json);
  }

  async fillParameter(name: string, value: string): Promise<void> {
    await this.block.locator(`tr[data-param-name="${name}"] input`).fill(value);
  }

  /**
   * Clicks Execute and reads the answer from the page once it shows this very response (the same status and
   * body as the network answer), so a re-execution never reads the previous one.
   */
  async execute(): Promise<Shown> {
    const answered = this.page.waitForResponse(
      (r: Response) => r.request().method() === this.method && this.path.test(new URL(r.url()).pathname),
    );
    await this.block.locator('button.execute').click();
    const response = await answered;
    const expected: Shown = { status: response.status(), body: JSON.parse(await response.text()) as unknown };
    const live = this.block.locator('.live-responses-table');
    let shown: Shown | undefined;
    for (const deadline = Date.now() + 10_000; ;) {
      shown = await this.readShown(live);
      if (shown && JSON.stringify(shown) === JSON.stringify(expected)) return shown;
      if (Date.now() > deadline) {
        throw new Error(
          `the page does not show ${JSON.stringify(expected)}; it shows ${JSON.stringify(shown)}`,
        );
      }
      await this.page.waitForTimeout(100);
    }
  }

  private async readShown(live: Locator): Promise<Shown | undefined> {
    if ((await live.count()) === 0) return undefined;
    const status = Number.parseInt(
      (await live.locator('tr.response .response-col_status').first().textContent()) ?? '',
      10,
    );
    const code = live.locator('tr.response .response-col_description .highlight-code code').first();
    if ((await code.count()) === 0) return undefined;
    try {
      return { status, body: JSON.parse((await code.textContent()) ?? '') as unknown };
    } catch {
      return undefined;
    }
  }
}

/**
 * From nothing to an executed limit order with the docs page alone, in a real browser: create an account with
 * "Try it out", authorize in the page's panel, and let the page sign every request. The only thing done outside
 * the page is the maker's wallet side (approval and pair signature), which a page without a wallet cannot do.
 */
export function docsPageJourney(service: () => EmbeddedService): void {
  describeWithChromium('docs page journey (headless chromium)', (browser: () => BrowserContext) => {
    const password = `docs-page-${Date.now()}`;
    const sent: Array<Promise<Sent>> = [];
    /** Uncaught errors and CSP refusals: the page must run under its policy without either. */
    const pageProblems: string[] = [];
    let page: Page;
    let ops: Record<'account' | 'chains' | 'createOrder' | 'getOrder', SwaggerOperation>;
    let credentials: { apiKey: string; secretKey: string };
    let order: CrossingOrder;
    let orderId = '';

    const authorizePanel = () => ({
      apiKeyId: page.locator('#tas-api-key-id'),
      secretKey: page.locator('#tas-secret-key'),
      passphrase: page.locator('#tas-passphrase'),
      status: page.locator('#tas-authorize-status'),
    });

    beforeAll(async () => {
      page = await browser().newPage();
      page.on('pageerror', (err) => pageProblems.push(`uncaught: ${err.message}`));
      page.on('console', (message) => {
        if (message.type() === 'error' && /Content Security Policy|Refused to/.test(message.text())) {
          pageProblems.push(`console: ${message.text()}`);
        }
      });
      page.on('request', (request: Request) => {
        sent.push(
          request.allHeaders().then((headers) => ({
            method: request.method(),
            path: new URL(request.url()).pathname,
            headers,
            postData: request.postData(),
          })),
        );
      });
      ops = {
        account: new SwaggerOperation(page, 'Accounts-postAccounts', 'POST', /\/accounts$/),
        chains: new SwaggerOperation(page, 'Chains_and_tokens-getChains', 'GET', /\/chains$/),
        createOrder: new SwaggerOperation(page, 'Limit_orders-postLimitOrder', 'POST', /\/limit-order$/),
        getOrder: new SwaggerOperation(
          page,
          'Limit_orders-getLimitOrderById',
          'GET',
          /\/limit-order\/[^/]+$/,
        ),
      };
    });
    afterAll(async () => {
      await page?.close();
      order?.provider.destroy();
    });

    it('opens the page: the Authorize panel says nobody is authorized, and a signed endpoint answers 401', async () => {
      await page.goto(`${service().baseUrl}/docs`);
      await page.locator('#operations-Accounts-postAccounts').waitFor();
      expect(await authorizePanel().status.textContent()).toBe(
        'Not authorized: signed endpoints go out unsigned and the gateway answers 401.',
      );
      // Swagger UI's own Authorize button would send fixed headers; the page hides it.
      const swaggerAuthorize = page.locator('.swagger-ui .auth-wrapper');
      expect(await swaggerAuthorize.count()).toBe(1);
      expect(await swaggerAuthorize.isVisible()).toBe(false);

      await ops.chains.tryItOut();
      expect(await ops.chains.execute()).toEqual({ status: 401, body: { message: 'Unauthorized' } });
    });

    it('creates an account with "Try it out" on POST /accounts and shows its keys', async () => {
      await ops.account.tryItOut();
      await ops.account.fillBody(JSON.stringify({ name: 'docs page journey', password }, null, 2));
      const shown = await ops.account.execute();
      expect(shown.status).toBe(200);
      credentials = {
        apiKey: text(shown.body, 'data', 'apiKey'),
        secretKey: text(shown.body, 'data', 'secretKey'),
      };
      expect(credentials.apiKey).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(credentials.secretKey.length).toBeGreaterThanOrEqual(32);
    });

    it('authorizes in the panel, which keeps the secrets in memory only (inputs cleared, no storage, no cookie)', async () => {
      const panel = authorizePanel();
      expect(await panel.secretKey.getAttribute('type')).toBe('password');
      expect(await panel.passphrase.getAttribute('type')).toBe('password');
      await panel.apiKeyId.fill(credentials.apiKey);
      await panel.secretKey.fill(credentials.secretKey);
      await panel.passphrase.fill(password);
      await page.getByRole('button', { name: 'Authorize', exact: true }).click();

      expect(await panel.status.textContent()).toBe(
        `Authorized: signing requests with API key ${credentials.apiKey}.`,
      );
      expect([
        await panel.apiKeyId.inputValue(),
        await panel.secretKey.inputValue(),
        await panel.passphrase.inputValue(),
      ]).toEqual(['', '', '']);
      const kept = await page.evaluate<string>(
        'JSON.stringify([Object.entries(localStorage), Object.entries(sessionStorage), document.cookie])',
      );
      expect(kept).not.toContain(credentials.secretKey);
      expect(kept).not.toContain(password);
      expect(await page.context().cookies()).toEqual([]);
    });

    it('lists the enabled chains with a signed GET /chains', async () => {
      const shown = await ops.chains.execute();
      expect(shown.status).toBe(200);
      expect(field(shown.body, 'success')).toBe(true);
      expect(field(shown.body, 'data', 'chainIds')).toEqual(expect.arrayContaining([1]));
      expect(field(shown.body, 'meta', 'apiKeyId')).toBe(credentials.apiKey);
    });

    it('creates a crossing limit order with a signed POST /limit-order', async () => {
      const chain = service().chain;
      // The wallet's part, done by the test: approval to the OrderExecutor and the EIP-712 pair signature, granted
      // to the key the page signs with.
      order = await crossingOrder(chain, MAKER_ACCOUNT, credentials.apiKey);
      expect(order.body).toMatchObject({
        accountTo: chain.accounts[MAKER_ACCOUNT]!.address,
        chainId: 1,
        tokenASymbol: 'WETH',
        tokenBSymbol: 'USDC',
        amount: '0.5',
        priceTrigger: '1000',
        price: '1000',
      });
      await ops.createOrder.tryItOut();
      // Pretty-printed in the order a person types: the page must send the canonical bytes it signed.
      await ops.createOrder.fillBody(JSON.stringify(order.body, null, 2));
      const shown = await ops.createOrder.execute();
      expect({ status: shown.status, code: field(shown.body, 'error', 'code') }).toEqual({
        status: 200,
        code: undefined,
      });
      expect(field(shown.body, 'data')).toMatchObject({
        accountTo: order.body.accountTo,
        chainId: 1,
        amount: 0.5,
        priceTrigger: 1000,
        status: 'pending',
      });
      orderId = text(shown.body, 'data', 'id');
    });

    it('follows the order with GET /limit-order/{id}, re-executing until completed; the chain has it', async () => {
      await ops.getOrder.tryItOut();
      await ops.getOrder.fillParameter('id', orderId);
      let status = '';
      let txHash = '';
      const seen = new Set<string>();
      for (const deadline = Date.now() + ORDER_TIMEOUT_MS; status !== 'completed';) {
        if (Date.now() > deadline)
          throw new Error(`order ${orderId} not completed; statuses seen: ${[...seen]}`);
        if (status) await page.waitForTimeout(1000);
        const shown = await ops.getOrder.execute();
        expect(shown.status).toBe(200);
        status = text(shown.body, 'data', 'status');
        seen.add(status);
        expect(['pending', 'executing', 'submitted', 'completed']).toContain(status);
        if (status === 'completed') txHash = text(shown.body, 'data', 'txHash');
      }

      const receipt = await order.provider.getTransactionReceipt(txHash);
      expect(receipt?.status).toBe(1);
      const usdc = token(service().chain, 'USDC');
      const gained = (await balanceOf(order.provider, usdc.address, order.maker.address)) - order.usdcBefore;
      // At least 0.5 WETH × the 1000 trigger less the 1 % slippage, in USDC base units.
      expect(gained).toBeGreaterThanOrEqual(495_000_000n);
    });

    it('after "Log out" sends signed endpoints unsigned again', async () => {
      await page.getByRole('button', { name: 'Log out' }).click();
      expect(await authorizePanel().status.textContent()).toBe(
        'Not authorized: signed endpoints go out unsigned and the gateway answers 401.',
      );
      expect(await ops.chains.execute()).toEqual({ status: 401, body: { message: 'Unauthorized' } });
    });

    it('never sent the secret key, signed exactly the calls made while authorized, never reused signed headers, ran clean', async () => {
      const requests = await Promise.all(sent);
      const apiPath = new URL(service().baseUrl).pathname;
      const tried = requests.filter(
        (r) =>
          r.path.startsWith(`${apiPath}/`) &&
          !r.path.startsWith(`${apiPath}/docs`) &&
          !r.path.endsWith('/openapi.json'),
      );

      for (const r of requests) {
        const carried = JSON.stringify([r.path, r.headers, r.postData]);
        expect({ request: `${r.method} ${r.path}`, secret: carried.includes(credentials.secretKey) }).toEqual(
          {
            request: `${r.method} ${r.path}`,
            secret: false,
          },
        );
      }

      const getOrderPath = `${apiPath}/limit-order/${orderId}`;
      const signed = tried.filter((r) => SIGNING_HEADERS.every((h) => h in r.headers));
      const unsigned = tried.filter((r) => SIGNING_HEADERS.every((h) => !(h in r.headers)));
      expect(signed.length + unsigned.length).toBe(tried.length);
      expect(unsigned.map((r) => `${r.method} ${r.path}`)).toEqual([
        `GET ${apiPath}/chains`,
        `POST ${apiPath}/accounts`,
        `GET ${apiPath}/chains`,
      ]);
      const signedCalls = signed.map((r) => `${r.method} ${r.path}`);
      expect(signedCalls.slice(0, 2)).toEqual([`GET ${apiPath}/chains`, `POST ${apiPath}/limit-order`]);
      expect(signedCalls.length).toBeGreaterThanOrEqual(3);
      expect(new Set(signedCalls.slice(2))).toEqual(new Set([`GET ${getOrderPath}`]));

      for (const r of tried) expect(r.headers['content-type']).toBe('application/json');
      for (const r of signed) {
        expect(r.headers['x-api-key-id']).toBe(credentials.apiKey);
        expect(r.headers['x-passphrase']).toBe(password);
      }
      const distinct = (name: string): number => new Set(signed.map((r) => r.headers[name])).size;
      expect(distinct('x-signature')).toBe(signed.length);
      expect(distinct('x-value-info')).toBe(signed.length);

      expect(pageProblems).toEqual([]);

      const createOrder = signed.find((r) => r.method === 'POST');
      expect(createOrder?.postData).toBe(canonicalJson(order.body));
      for (const r of signed.filter((s) => s.method === 'GET')) expect(r.postData).toBeNull();
    });
  });
}
