import net from 'node:net';

/** A port nothing listens on right now, from the kernel (listen on 0, then close). */
export function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Whether `port` on `host` can be listened on now. */
export function portIsFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/** A port a process is configured to listen on, named by the setting that chose it. */
export interface ConfiguredPort {
  setting: string;
  port: number;
}

/**
 * The first configured port something else listens on, as one line for the operator; undefined when all are
 * free. Port 0 (any free port) is never taken.
 */
export async function takenPortLine(
  host: string,
  ports: readonly ConfiguredPort[],
): Promise<string | undefined> {
  for (const { setting, port } of ports) {
    if (port !== 0 && !(await portIsFree(host, port)))
      return `${setting}=${port}: ${host}:${port} is taken by another process (stop it or choose another port)`;
  }
  return undefined;
}
