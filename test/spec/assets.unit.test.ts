// lab.yaml's assets: defaults, and every refusal on the line it is about.
import { describe, expect, it } from 'vitest';
import { parseLabSpec } from '../../control-plane/src/spec/parse.js';
import { problemLines } from './refusal.js';

const NODES = `name: x
nodes:
  - name: issuer
    kind: rgb
  - name: holder
    kind: rgb
  - name: poor
    kind: rgb
    funding_sat: 0
  - name: alice
assets:
`;

const problemsOf = (assets: string) => problemLines(NODES + assets, 'assets.yaml');

describe('lab.yaml assets', () => {
  it('fills the defaults: nia, precision 0, the ticker as name, nothing distributed', () => {
    const lab = parseLabSpec(
      `${NODES}  - ticker: LAB\n    supply: 1000\n    issuer: issuer\n  - ticker: GOLD\n    name: Gold bar\n    schema: cfa\n    precision: 2\n    supply: 500\n    issuer: holder\n    distribute: { issuer: 100 }\n`,
    );
    expect(lab.assets).toEqual([
      { ticker: 'LAB', name: 'LAB', schema: 'nia', precision: 0, supply: 1000, issuer: 'issuer', distribute: {} },
      {
        ticker: 'GOLD',
        name: 'Gold bar',
        schema: 'cfa',
        precision: 2,
        supply: 500,
        issuer: 'holder',
        distribute: { issuer: 100 },
      },
    ]);
  });

  it('refuses tickers and names rgb-lib would refuse, with the rule', () => {
    expect(problemsOf('  - ticker: usd\n    name: "\u00e9t\u00e9"\n    supply: 10\n    issuer: issuer\n')).toEqual([
      {
        line: 12,
        path: 'assets[0].ticker',
        message: 'must be 1-8 upper-case letters and digits, starting with a letter (e.g. USDT)',
      },
      { line: 13, path: 'assets[0].name', message: 'must be 1-40 printable ASCII characters' },
    ]);
    expect(problemsOf('  - ticker: TOOLONGXY\n    supply: 10\n    issuer: issuer\n')[0]).toMatchObject({
      line: 12,
      path: 'assets[0].ticker',
    });
  });

  it('refuses a duplicate ticker, an unknown schema, a supply of 0 and a precision above 18', () => {
    expect(
      problemsOf(
        '  - ticker: LAB\n    supply: 10\n    issuer: issuer\n  - ticker: LAB\n    schema: ifa\n    supply: 0\n    precision: 19\n    issuer: issuer\n',
      )
        .map((problem) => [problem.line, problem.path])
        .sort(),
    ).toEqual([
      [16, 'assets[1].schema'],
      [17, 'assets[1].supply'],
      [18, 'assets[1].precision'],
    ]);
    expect(
      problemsOf(
        '  - ticker: LAB\n    supply: 10\n    issuer: issuer\n  - ticker: LAB\n    supply: 10\n    issuer: issuer\n',
      ),
    ).toEqual([{ line: 15, path: 'assets[1].ticker', message: 'duplicate asset ticker "LAB"' }]);
  });

  it('refuses an issuer or holder that is missing, not an asset node, unfunded, or the issuer itself', () => {
    expect(
      problemsOf(
        '  - ticker: LAB\n    supply: 100\n    issuer: alice\n    distribute:\n      zed: 1\n      issuer: 1\n      poor: 1\n  - ticker: OWN\n    supply: 100\n    issuer: issuer\n    distribute:\n      issuer: 5\n',
      ),
    ).toEqual([
      {
        line: 14,
        path: 'assets[0].issuer',
        message: '"alice" is an lnd node: RGB assets are held by rgb or rln nodes',
      },
      {
        line: 16,
        path: 'assets[0].distribute.zed',
        message: 'no node named "zed" (nodes: issuer, holder, poor, alice)',
      },
      {
        line: 18,
        path: 'assets[0].distribute.poor',
        message: 'poor has funding_sat 0: a node holding assets needs bitcoin for its colored UTXOs',
      },
      {
        line: 23,
        path: 'assets[1].distribute.issuer',
        message: 'the issuer holds what it does not distribute: issuer cannot receive from itself',
      },
    ]);
  });

  it('refuses distributing more than the supply, a uda supply other than 1, and amounts that are not whole', () => {
    expect(
      problemsOf(
        '  - ticker: LAB\n    supply: 100\n    issuer: issuer\n    distribute: { holder: 101 }\n  - ticker: ART\n    schema: uda\n    supply: 2\n    issuer: issuer\n',
      ),
    ).toEqual([
      { line: 15, path: 'assets[0].distribute', message: 'distributes 101, more than the supply of 100' },
      { line: 18, path: 'assets[1].supply', message: 'a uda asset is one unique token: its supply is 1' },
    ]);
    expect(
      problemsOf('  - ticker: LAB\n    supply: 100\n    issuer: issuer\n    distribute: { holder: 1.5 }\n')[0],
    ).toMatchObject({ line: 15, path: 'assets[0].distribute.holder', message: 'must be integer' });
  });
});
