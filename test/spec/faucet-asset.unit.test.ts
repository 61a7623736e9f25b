// lab.yaml's services.faucet.asset: accepted on a node holding the asset at bring-up; every refusal on its line.
import { describe, expect, it } from 'vitest';
import { parseLabSpec } from '../../control-plane/src/spec/parse.js';
import { problemLines } from './refusal.js';

const LAB = `name: x
nodes:
  - { name: alice }
  - { name: issuer, kind: rgb }
  - { name: holder, kind: rgb }
  - { name: other, kind: rgb }
assets:
  - { ticker: LAB, supply: 1000, issuer: issuer, distribute: { holder: 300 } }
  - { ticker: ART, schema: uda, supply: 1, issuer: issuer }
services:
  faucet:
    node: alice
    asset:
`;

const problemsOf = (asset: string) => problemLines(LAB + asset, 'faucet.yaml');

describe('lab.yaml services.faucet.asset', () => {
  it('takes an asset the node holds at bring-up, up to what it holds', () => {
    expect(
      parseLabSpec(`${LAB}      ticker: LAB\n      amount: 700\n      node: issuer\n`).services.faucet!.asset,
    ).toEqual({ ticker: 'LAB', amount: 700, node: 'issuer' });
    expect(
      parseLabSpec(`${LAB}      ticker: LAB\n      amount: 300\n      node: holder\n`).services.faucet!.asset,
    ).toEqual({ ticker: 'LAB', amount: 300, node: 'holder' });
  });

  it('refuses an asset the lab does not have, a uda, and a bad ticker, on their line', () => {
    expect(problemsOf('      ticker: NOPE\n      amount: 5\n      node: issuer\n')).toEqual([
      { line: 14, path: 'services.faucet.asset.ticker', message: 'no asset "NOPE" in this lab\'s assets (LAB, ART)' },
    ]);
    expect(problemsOf('      ticker: ART\n      amount: 1\n      node: issuer\n')).toEqual([
      {
        line: 14,
        path: 'services.faucet.asset.ticker',
        message: 'ART is a uda asset, one unique token: the faucet gives a fungible asset (nia or cfa)',
      },
    ]);
    expect(problemsOf('      ticker: lab\n      amount: 5\n      node: issuer\n')).toEqual([
      {
        line: 14,
        path: 'services.faucet.asset.ticker',
        message: 'must be 1-8 upper-case letters and digits, starting with a letter (e.g. USDT)',
      },
    ]);
  });

  it('refuses a node that is not an asset node, holds none of the asset, or less than one claim', () => {
    expect(problemsOf('      ticker: LAB\n      amount: 5\n      node: alice\n')).toEqual([
      {
        line: 16,
        path: 'services.faucet.asset.node',
        message: '"alice" is an lnd node: RGB assets are held by rgb or rln nodes',
      },
    ]);
    expect(problemsOf('      ticker: LAB\n      amount: 5\n      node: other\n')).toEqual([
      {
        line: 16,
        path: 'services.faucet.asset.node',
        message: 'other holds no LAB at bring-up: name its issuer (issuer) or a node its distribute gives some to',
      },
    ]);
    expect(problemsOf('      ticker: LAB\n      amount: 701\n      node: issuer\n')).toEqual([
      {
        line: 15,
        path: 'services.faucet.asset.amount',
        message: 'issuer holds 700 LAB at bring-up, less than one claim of 701',
      },
    ]);
  });

  it('refuses missing keys, unknown ones and amounts that are not positive whole numbers', () => {
    expect(
      problemsOf('      ticker: LAB\n      node: issuer\n      amout: 5\n')
        .map((problem) => problem.path)
        .sort(),
    ).toEqual(['services.faucet.asset', 'services.faucet.asset.amout']);
    expect(problemsOf('      ticker: LAB\n      amount: 0\n      node: issuer\n')).toMatchObject([
      { line: 15, path: 'services.faucet.asset.amount' },
    ]);
  });
});
