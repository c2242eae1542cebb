import http from 'node:http';

export interface PlainResponse {
  status: number;
  text: string;
  headers: http.IncomingHttpHeaders;
}

/**
 * One request over a new connection from a given loopback address (any of 127.0.0.0/8 on Linux), so a test can
 * play several client IPs against the api.
 */
export function requestFrom(
  localAddress: string,
  baseUrl: string,
  method: string,
  pathAndQuery: string,
  headers: Record<string, string>,
  body?: string,
): Promise<PlainResponse> {
  return new Promise((resolve, reject) => {
    const length = body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) };
    const req = http.request(
      `${baseUrl}${pathAndQuery}`,
      { method, headers: { ...headers, ...length }, localAddress, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
            headers: res.headers,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
