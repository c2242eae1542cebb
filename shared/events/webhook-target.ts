import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Addresses a webhook may not reach unless the operator allows it: a URL is the integrator's to choose, and the
 * service must not become a way into its own network (loopback, private ranges, link-local and cloud metadata,
 * carrier-grade NAT, multicast and reserved space).
 */
const INTERNAL = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  INTERNAL.addSubnet(net, prefix, 'ipv4');
}
// No ::ffff:0:0/96 rule: BlockList matches IPv4 addresses against IPv4-mapped IPv6 rules, so it would hold every
// IPv4 address; mapped addresses are judged as the IPv4 address they carry (isInternalAddress).
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  INTERNAL.addSubnet(net, prefix, 'ipv6');
}

export function isInternalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 6 && address.toLowerCase().startsWith('::ffff:')) {
    // An IPv4-mapped address is judged as the IPv4 address it carries.
    const v4 = address.slice(7);
    if (isIP(v4) === 4) return INTERNAL.check(v4, 'ipv4');
  }
  return INTERNAL.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export class InternalTargetError extends Error {
  constructor(host: string) {
    super(`${host} resolves to an internal address; webhooks may not be delivered there`);
    this.name = 'InternalTargetError';
  }
}

/**
 * A `lookup` for http.request that refuses internal addresses: the check is on the address the socket connects
 * to, so a name that resolves differently between a check and the connection (DNS rebinding) gains nothing.
 */
export const guardedLookup: LookupFunction = (
  hostname: string,
  options: LookupOptions,
  callback: Parameters<LookupFunction>[2],
): void => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const list = addresses as LookupAddress[];
    if (!list.length || list.some((entry) => isInternalAddress(entry.address))) {
      return callback(new InternalTargetError(hostname) as NodeJS.ErrnoException, []);
    }
    if (options.all) return callback(null, list);
    const first = list[0]!;
    return callback(null, first.address, first.family);
  });
};
