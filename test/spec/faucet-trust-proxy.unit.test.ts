// lab.yaml's services.faucet.trust_proxy: addresses, CIDRs and names the faucet reads; anything else
// refused on its line.
import { describe, expect, it } from 'vitest';
import { parseLabSpec } from '../../control-plane/src/spec/parse.js';
import { problemLines } from './refusal.js';

const LAB = 'name: x\nnodes:\n  - { name: alice }\nservices:\n  faucet:\n    node: alice\n';

describe('lab.yaml services.faucet.trust_proxy', () => {
  it('is left out by default, and takes addresses, CIDRs, names, or none', () => {
    expect(parseLabSpec(LAB).services.faucet!.trust_proxy).toBeUndefined();
    const list = ['192.0.2.10', '10.0.0.0/8', '::1', 'fd00::/8', 'loopback', 'gateway'];
    expect(parseLabSpec(`${LAB}    trust_proxy: [${list.join(', ')}]\n`).services.faucet!.trust_proxy).toEqual(list);
    expect(parseLabSpec(`${LAB}    trust_proxy: []\n`).services.faucet!.trust_proxy).toEqual([]);
  });

  it('refuses what the faucet could not read, on its line', () => {
    expect(
      problemLines(`${LAB}    trust_proxy:\n      - 10.0.0.1\n      - proxy.example\n      - 10.0.0.0/40\n`, 'f.yaml'),
    ).toEqual([
      {
        line: 9,
        path: 'services.faucet.trust_proxy[1]',
        message: '"proxy.example" is not an address, a CIDR (10.0.0.0/8), loopback, linklocal, uniquelocal or gateway',
      },
      {
        line: 10,
        path: 'services.faucet.trust_proxy[2]',
        message: '"10.0.0.0/40" is not an address, a CIDR (10.0.0.0/8), loopback, linklocal, uniquelocal or gateway',
      },
    ]);
    expect(problemLines(`${LAB}    trust_proxy: true\n`, 'f.yaml')).toEqual([
      { line: 7, path: 'services.faucet.trust_proxy', message: 'must be array' },
    ]);
  });
});
