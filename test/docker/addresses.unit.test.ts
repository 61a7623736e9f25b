import { describe, expect, it } from 'vitest';
import { labAddresses, macAddressOf } from '../../control-plane/src/runtimes/docker/addresses.js';

describe('labAddresses', () => {
  it('gives each service the same address whatever the order it is named in, skipping the gateway', () => {
    const one = labAddresses('10.89.3.0/24', '10.89.3.1', ['chain', 'alice', 'bob']);
    expect(one).toEqual(
      new Map([
        ['alice', '10.89.3.2'],
        ['bob', '10.89.3.3'],
        ['chain', '10.89.3.4'],
      ]),
    );
    expect(labAddresses('10.89.3.0/24', '10.89.3.1', ['bob', 'chain', 'alice'])).toEqual(one);
    expect(labAddresses('10.89.3.0/24', '10.89.3.3', ['alice', 'bob'])).toEqual(
      new Map([
        ['alice', '10.89.3.2'],
        ['bob', '10.89.3.4'],
      ]),
    );
  });

  it('counts from the network address of a larger subnet, across octets', () => {
    const many = Array.from({ length: 300 }, (_, index) => `s${String(index).padStart(3, '0')}`);
    const addresses = labAddresses('172.20.5.9/16', '172.20.0.1', many)!;
    expect(addresses.get('s000')).toBe('172.20.0.2');
    expect(addresses.get('s299')).toBe('172.20.1.45'); // the 302nd address of 172.20.0.0
  });

  it('gives none when the subnet is too small or not IPv4', () => {
    expect(labAddresses('10.0.0.0/30', '10.0.0.1', ['a', 'b'])).toBeUndefined();
    expect(labAddresses('fd00::/64', undefined, ['a'])).toBeUndefined();
  });
});

describe('macAddressOf', () => {
  it('makes a locally administered unicast MAC address from the IPv4 address, the same each time', () => {
    expect(macAddressOf('10.89.0.10')).toBe('02:42:0a:59:00:0a');
    expect(macAddressOf('172.20.1.45')).toBe('02:42:ac:14:01:2d');
    expect(macAddressOf('10.89.0.10')).toBe(macAddressOf('10.89.0.10'));
    expect(macAddressOf('10.89.0.11')).not.toBe(macAddressOf('10.89.0.10'));
  });
});
