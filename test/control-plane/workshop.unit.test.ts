// A workshop's copies of one lab.yaml, and the sheet that hands them out.
import { describe, expect, it } from 'vitest';
import { chosenLabs, copiesOf, listingCsv } from '../../control-plane/src/cli/workshop.js';
import { parseLabSpec } from '../../control-plane/src/spec/parse.js';

const YAML = '# the workshop lab\nname: lesson\nruntime: kubernetes\nnodes:\n  - name: alice # the payer\n';

describe('reglab up --copies', () => {
  it('makes N copies named <prefix>1..N, each the same lab.yaml with its own name, comments kept', () => {
    const copies = copiesOf(YAML, parseLabSpec(YAML), 3, 'attendee-');
    expect(copies.map((copy) => copy.name)).toEqual(['attendee-1', 'attendee-2', 'attendee-3']);
    expect(copies[1].yaml).toBe(
      '# the workshop lab\nname: attendee-2\nruntime: kubernetes\nnodes:\n  - name: alice # the payer\n',
    );
    expect(parseLabSpec(copies[2].yaml)).toMatchObject({ name: 'attendee-3', nodes: [{ name: 'alice' }] });
  });

  it('refuses what copies cannot share: fixed host ports, a fixed namespace; and a count that is no count', () => {
    const ports = `${YAML}services:\n  faucet:\n    node: alice\n    port: 8088\n`;
    expect(() => copiesOf(ports, parseLabSpec(ports), 2, 'a-')).toThrow(/fixed host ports lab.yaml gives faucet/);
    const namespace = `${YAML}kubernetes:\n  namespace: class\n`;
    expect(() => copiesOf(namespace, parseLabSpec(namespace), 2, 'a-')).toThrow(/kubernetes.namespace/);
    expect(() => copiesOf(YAML, parseLabSpec(YAML), 0, 'a-')).toThrow(/1 or more/);
  });

  it('takes down the labs --all or --prefix names', () => {
    const labs = [{ name: 'attendee-1' }, { name: 'attendee-2' }, { name: 'default' }];
    expect(chosenLabs(labs, { prefix: 'attendee-' })).toEqual(['attendee-1', 'attendee-2']);
    expect(chosenLabs(labs, { all: true })).toEqual(['attendee-1', 'attendee-2', 'default']);
    expect(chosenLabs(labs, {})).toEqual([]);
  });

  it('lists them as CSV, a line per lab, quoting what needs it', () => {
    const row = {
      lab: 'attendee-1',
      status: 'ready',
      runtime: 'kubernetes',
      dashboard: 'http://10.0.0.5:7777/?lab=attendee-1#token=abc',
      token: 'abc',
      walletServer: 'http://10.0.0.5:40001',
      faucet: '',
      chainAdapter: 'http://10.0.0.5:40003/api,"x"',
    };
    expect(listingCsv([row])).toBe(
      'lab,status,dashboard,token,wallet_server,faucet,chain_adapter\nattendee-1,ready,http://10.0.0.5:7777/?lab=attendee-1#token=abc,abc,http://10.0.0.5:40001,,"http://10.0.0.5:40003/api,""x"""\n',
    );
  });
});
