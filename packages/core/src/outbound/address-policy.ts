import ipaddr from 'ipaddr.js';

/**
 * Which network addresses outbound calls may reach: public (globally routable) unicast only, unless
 * an address falls in a range the operator allows (e.g. `10.1.0.0/16` for a provider on the same
 * private network, `127.0.0.1/32` in tests). Loopback, private, link-local (the cloud metadata
 * service at 169.254.169.254 among them), unique-local, carrier-grade NAT, multicast, reserved and
 * unspecified addresses are refused. An IPv6 address that carries an IPv4 address (see
 * `embeddedIPv4`) is judged as that IPv4 address, so `[::127.0.0.1]` is as loopback as `127.0.0.1`.
 */
export class AddressPolicy {
  private readonly allowed: [ipaddr.IPv4 | ipaddr.IPv6, number][];

  /** `allow`: CIDR ranges or single addresses; throws naming one that is neither. */
  constructor(allow: readonly string[] = []) {
    this.allowed = allow.map((range) => {
      try {
        return range.includes('/')
          ? ipaddr.parseCIDR(range)
          : ipaddr.parseCIDR(`${range}/${ipaddr.parse(range).kind() === 'ipv4' ? 32 : 128}`);
      } catch {
        throw new Error(`"${range}" is not an IP address or CIDR range`);
      }
    });
  }

  /** Why `address` may not be reached (a range name), or undefined when it may. */
  refusal(address: string): string | undefined {
    if (!ipaddr.isValid(address)) return 'not an IP address';
    const written = ipaddr.parse(address);
    const reached = written.kind() === 'ipv6' ? (embeddedIPv4(written as ipaddr.IPv6) ?? written) : written;
    if (this.allows(written) || this.allows(reached)) return undefined;
    const range = reached.range();
    return range === 'unicast' ? undefined : range;
  }

  private allows(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
    return this.allowed.some(
      ([range, bits]) => range.kind() === address.kind() && address.match(range, bits),
    );
  }
}

/**
 * The IPv6 ranges whose addresses carry an IPv4 address, and where it lies in the 16 bytes. A packet
 * to one of them ends at (or is translated to) that IPv4 address, so it is what the policy judges.
 * ipaddr.js parses and matches; it names these ranges but extracts only the mapped form's address.
 */
const EMBEDDINGS: { prefix: [ipaddr.IPv6, number]; ipv4: (bytes: number[]) => number[] }[] = [
  // IPv4-compatible (RFC 4291 §2.5.5.1, deprecated; `::` and `::1` are excluded below).
  { prefix: ipv6Range('::/96'), ipv4: (bytes) => bytes.slice(12) },
  // IPv4-mapped (RFC 4291 §2.5.5.2).
  { prefix: ipv6Range('::ffff:0:0/96'), ipv4: (bytes) => bytes.slice(12) },
  // IPv4-translated (RFC 6145, SIIT).
  { prefix: ipv6Range('::ffff:0:0:0/96'), ipv4: (bytes) => bytes.slice(12) },
  // NAT64's well-known prefix (RFC 6052); its local-use 64:ff9b:1::/48 has no fixed layout and
  // stays refused as ipaddr.js's `rfc6052` range.
  { prefix: ipv6Range('64:ff9b::/96'), ipv4: (bytes) => bytes.slice(12) },
  // 6to4 (RFC 3056): the site's IPv4 address follows the 16-bit prefix.
  { prefix: ipv6Range('2002::/16'), ipv4: (bytes) => bytes.slice(2, 6) },
  // Teredo (RFC 4380): the client's IPv4 address, every bit inverted, in the last 32 bits.
  { prefix: ipv6Range('2001::/32'), ipv4: (bytes) => bytes.slice(12).map((byte) => byte ^ 0xff) },
];

/** The IPv4 address an IPv6 address carries, if it is in one of the EMBEDDINGS. */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  // `::` and `::1` lie in the IPv4-compatible range but are IPv6's own unspecified and loopback.
  if (address.range() === 'unspecified' || address.range() === 'loopback') return undefined;
  const form = EMBEDDINGS.find(({ prefix: [range, bits] }) => address.match(range, bits));
  return form && new ipaddr.IPv4(form.ipv4(address.toByteArray()));
}

function ipv6Range(cidr: string): [ipaddr.IPv6, number] {
  return ipaddr.IPv6.parseCIDR(cidr);
}
