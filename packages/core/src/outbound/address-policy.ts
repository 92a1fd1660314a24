import ipaddr from 'ipaddr.js';

/**
 * Which network addresses outbound calls may reach: public (globally routable) unicast only, unless
 * an address falls in a range the operator allows (e.g. `10.1.0.0/16` for a provider on the same
 * private network, `127.0.0.1/32` in tests). Loopback, private, link-local (the cloud metadata
 * service at 169.254.169.254 among them), unique-local, carrier-grade NAT, multicast, reserved and
 * unspecified addresses are refused; an IPv4 address mapped into IPv6 is judged as the IPv4 address.
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
    let parsed = ipaddr.parse(address);
    if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
      parsed = (parsed as ipaddr.IPv6).toIPv4Address();
    }
    if (this.allowed.some(([range, bits]) => range.kind() === parsed.kind() && parsed.match(range, bits))) {
      return undefined;
    }
    const range = parsed.range();
    return range === 'unicast' ? undefined : range;
  }
}
