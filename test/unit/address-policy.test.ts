import { AddressPolicy } from '@skillrun/core';
import { describe, expect, it } from 'vitest';

/** Each address with why it is refused, or 'reachable'. */
const judged = (policy: AddressPolicy, addresses: string[]) =>
  Object.fromEntries(addresses.map((address) => [address, policy.refusal(address) ?? 'reachable']));

describe('AddressPolicy', () => {
  it('refuses IPv4 and IPv6 addresses that are not public', () => {
    expect(
      judged(new AddressPolicy(), [
        '127.0.0.1',
        '10.0.0.1',
        '169.254.169.254',
        '8.8.8.8',
        '::1',
        '::',
        'fd00::1',
      ]),
    ).toEqual({
      '127.0.0.1': 'loopback',
      '10.0.0.1': 'private',
      '169.254.169.254': 'linkLocal',
      '8.8.8.8': 'reachable',
      '::1': 'loopback',
      '::': 'unspecified',
      'fd00::1': 'uniqueLocal',
    });
  });

  it('judges every IPv6 form that carries an IPv4 address as that IPv4 address', () => {
    expect(
      judged(new AddressPolicy(), [
        // IPv4-compatible (::/96), as a URL writes [::127.0.0.1] and as written.
        '::7f00:1',
        '::127.0.0.1',
        '::a9fe:a9fe',
        '::808:808',
        // IPv4-mapped (::ffff:0:0/96) and IPv4-translated (::ffff:0:0:0/96).
        '::ffff:7f00:1',
        '::ffff:0:a00:1',
        // NAT64's well-known prefix (64:ff9b::/96).
        '64:ff9b::7f00:1',
        '64:ff9b::c0a8:101',
        '64:ff9b::808:808',
        // 6to4 (2002::/16): the IPv4 address follows the prefix.
        '2002:7f00:1::1',
        '2002:a9fe:a9fe::',
        '2002:808:808::1',
        // Teredo (2001::/32): the client's address, inverted, in the last 32 bits.
        '2001:0:4136:e378:8000:63bf:80ff:fffe',
        '2001:0:4136:e378:8000:63bf:f5ff:fffe',
        '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
      ]),
    ).toEqual({
      '::7f00:1': 'loopback',
      '::127.0.0.1': 'loopback',
      '::a9fe:a9fe': 'linkLocal',
      '::808:808': 'reachable',
      '::ffff:7f00:1': 'loopback',
      '::ffff:0:a00:1': 'private',
      '64:ff9b::7f00:1': 'loopback',
      '64:ff9b::c0a8:101': 'private',
      '64:ff9b::808:808': 'reachable',
      '2002:7f00:1::1': 'loopback',
      '2002:a9fe:a9fe::': 'linkLocal',
      '2002:808:808::1': 'reachable',
      '2001:0:4136:e378:8000:63bf:80ff:fffe': 'loopback',
      '2001:0:4136:e378:8000:63bf:f5ff:fffe': 'private',
      '2001:0:4136:e378:8000:63bf:f7f7:f7f7': 'reachable',
    });
  });

  it('lets an allowed IPv4 range be reached in any IPv6 form that carries it, and nothing more', () => {
    expect(
      judged(new AddressPolicy(['127.0.0.1/32']), [
        '127.0.0.1',
        '::7f00:1',
        '64:ff9b::7f00:1',
        '::7f00:2',
        '::1',
      ]),
    ).toEqual({
      '127.0.0.1': 'reachable',
      '::7f00:1': 'reachable',
      '64:ff9b::7f00:1': 'reachable',
      '::7f00:2': 'loopback',
      '::1': 'loopback',
    });
  });
});
