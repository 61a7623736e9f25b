// RGB assets in a lab, through the control plane's API and CLI, over real rgb-lib: rgb nodes, the
// lab's indexer and consignment proxy. lab.yaml's assets are issued and handed out at bring-up;
// `asset send` moves exact amounts to blinded and witness invoices; bad input changes nothing.
// Its own lab: rgb nodes and assets, which the default lab has not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reglabOf } from '../support/cli.js';
import { bringUpLab, startTestControlPlane, type TestControlPlane } from '../support/control-plane.js';

const LAB = `name: assets
nodes:
  - { name: issuer, kind: rgb, funding_sat: 1000000 }
  - { name: bob, kind: rgb, funding_sat: 1000000 }
  - { name: carol, kind: rgb, funding_sat: 1000000 }
assets:
  - { ticker: LAB, name: Lab coin, supply: 1000, issuer: issuer, distribute: { bob: 300, carol: 200 } }
  - { ticker: GOLD, schema: cfa, precision: 2, supply: 5000, issuer: bob, distribute: { carol: 1000 } }
  - { ticker: ART, schema: uda, supply: 1, issuer: issuer, distribute: { carol: 1 } }
`;

type Holding = { ticker: string; schema: string; settled: number; future: number; spendable: number };

describe('RGB assets in a lab', () => {
  let cp: TestControlPlane;
  /** node -> ticker -> settled amount, from the lab's status. */
  const held = async () => {
    const { body } = await cp.call('GET', '/labs/assets');
    return Object.fromEntries(
      body.nodes.map((node: { name: string; assets: Holding[] }) => [
        node.name,
        Object.fromEntries(node.assets.map((asset) => [asset.ticker, asset.settled])),
      ]),
    );
  };
  const send = (body: object) => cp.call('POST', '/labs/assets/assets/send?wait=true', body);
  /** The CLI as users run it, against this lab: its exit code and what it printed. */
  const reglab = (...args: string[]) => reglabOf(cp.home, '--lab', 'assets', ...args);

  beforeAll(async () => {
    cp = await startTestControlPlane();
    await bringUpLab(cp, LAB, 'assets');
  });
  afterAll(async () => {
    await cp?.stop();
  });

  it('comes up with every asset issued and distributed, balances exact on every node', async () => {
    expect(await held()).toEqual({
      issuer: { LAB: 500, ART: 0 },
      bob: { LAB: 300, GOLD: 4000 },
      carol: { LAB: 200, GOLD: 1000, ART: 1 },
    });
    const { body } = await cp.call('GET', '/labs/assets');
    expect(body.phases.map((phase: { name: string }) => phase.name)).toContain('assets');
    const carol = body.nodes.find((node: { name: string }) => node.name === 'carol');
    expect(carol.assets.find((asset: Holding) => asset.ticker === 'GOLD')).toMatchObject({
      schema: 'cfa',
      precision: 2,
      settled: 1000,
      future: 1000,
      spendable: 1000,
      assetId: expect.stringMatching(/^rgb:/),
    });
  });

  it("lists the lab's assets with their schema, supply and holders", async () => {
    const { status, body } = await cp.call('GET', '/labs/assets/assets');
    expect(status).toBe(200);
    const byTicker = Object.fromEntries(body.assets.map((asset: { ticker: string }) => [asset.ticker, asset]));
    expect(byTicker.LAB).toMatchObject({
      schema: 'nia',
      name: 'Lab coin',
      precision: 0,
      issuedSupply: 1000,
      holders: { issuer: 500, bob: 300, carol: 200 },
    });
    expect(byTicker.GOLD).toMatchObject({
      schema: 'cfa',
      name: 'GOLD',
      precision: 2,
      issuedSupply: 5000,
      holders: { bob: 4000, carol: 1000 },
    });
    expect(byTicker.ART).toMatchObject({ schema: 'uda', issuedSupply: 1, holders: { issuer: 0, carol: 1 } });
  });

  it('sends exact amounts to a blinded invoice and to a witness invoice', async () => {
    const blinded = await send({ from: 'bob', to: 'carol', asset: 'LAB', amount: 120 });
    expect(blinded.status).toBe(200);
    expect(blinded.body).toMatchObject({
      queue: 'assets',
      state: 'completed',
      result: { asset: 'LAB', amount: 120, witness: false, balances: { bob: 180, carol: 320 } },
    });
    expect(blinded.body.result.txid).toMatch(/^[0-9a-f]{64}$/);
    const witness = await send({ from: 'carol', to: 'issuer', asset: 'GOLD', amount: 250, witness: true });
    expect(witness.body).toMatchObject({
      state: 'completed',
      result: { asset: 'GOLD', amount: 250, witness: true, balances: { carol: 750, issuer: 250 } },
    });
    const art = await send({ from: 'carol', to: 'bob', asset: 'ART', amount: 1 });
    expect(art.body).toMatchObject({ state: 'completed', result: { balances: { carol: 0, bob: 1 } } });
    expect(await held()).toEqual({
      issuer: { LAB: 500, ART: 0, GOLD: 250 },
      bob: { LAB: 180, GOLD: 4000, ART: 1 },
      carol: { LAB: 320, GOLD: 750, ART: 0 },
    });
  });

  it('issues a new asset on a node, named by its ticker from then on; a taken ticker is 409', async () => {
    const issued = await cp.call('POST', '/labs/assets/assets', {
      node: 'carol',
      ticker: 'NEW',
      amount: 42,
      name: 'New coin',
      precision: 3,
    });
    expect(issued.status).toBe(201);
    expect(issued.body).toMatchObject({
      node: 'carol',
      asset: {
        ticker: 'NEW',
        schema: 'nia',
        name: 'New coin',
        precision: 3,
        issuedSupply: 42,
        balance: { settled: 42 },
      },
    });
    expect((await held()).carol.NEW).toBe(42);
    const again = await cp.call('POST', '/labs/assets/assets', { node: 'bob', ticker: 'NEW', amount: 1 });
    expect(again).toMatchObject({ status: 409, body: { error: { code: 'ASSET_EXISTS' } } });
  });

  it('gives a node new colored UTXOs (one block) when it has no free one left, and goes on', async () => {
    const height = async () => (await cp.call('GET', '/labs/assets')).body.chain.height as number;
    const before = await height();
    // each issuance takes a free colored UTXO; bob got 10 at bring-up and has used some
    for (let index = 1; index <= 11; index++) {
      const issued = await cp.call('POST', '/labs/assets/assets', { node: 'bob', ticker: `T${index}`, amount: index });
      expect(issued.status, JSON.stringify(issued.body)).toBe(201);
    }
    expect(await height()).toBeGreaterThan(before);
    const bob = (await held()).bob;
    for (let index = 1; index <= 11; index++) expect(bob[`T${index}`]).toBe(index);
  });

  it('refuses bad asset input with 400 and a message saying what was wrong, moving nothing', async () => {
    const before = await held();
    const refusals: [object, string, RegExp][] = [
      [
        { from: 'bob', to: 'carol', asset: 'NOPE', amount: 1 },
        'NO_SUCH_ASSET',
        /no asset "NOPE" \(its assets: LAB, GOLD, ART, NEW, T1, /,
      ],
      [
        { from: 'bob', to: 'carol', asset: 'LAB', amount: 181 },
        'INSUFFICIENT_ASSETS',
        /bob can spend 180 of LAB, not 181/,
      ],
      [{ from: 'bob', to: 'bob', asset: 'LAB', amount: 1 }, 'SAME_NODE', /two different nodes/],
      [{ from: 'bob', to: 'carol', asset: 'ART', amount: 2 }, 'INVALID_AMOUNT', /ART is a uda asset, one unique token/],
      [{ from: 'bob', to: 'carol', asset: 'LAB', amount: '5' }, 'BAD_REQUEST', /amount/],
      [{ from: 'bob', to: 'carol', asset: 'LAB', amount: 0 }, 'BAD_REQUEST', /amount/],
      [{ from: 'bob', to: 'zed', asset: 'LAB', amount: 1 }, 'NO_SUCH_NODE', /no node "zed"/],
    ];
    for (const [body, code, message] of refusals) {
      const answer = await send(body);
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      expect(answer.body.error.code).toBe(code);
      expect(answer.body.error.message).toMatch(message);
    }
    const issues: [object, string, RegExp][] = [
      [{ node: 'carol', ticker: 'lower', amount: 5 }, 'BAD_REQUEST', /ticker/],
      [{ node: 'carol', ticker: 'TOK', amount: 2, schema: 'uda' }, 'INVALID_AMOUNT', /supply is 1/],
      [{ node: 'carol', ticker: 'TOK', amount: 5, precision: 19 }, 'BAD_REQUEST', /precision/],
    ];
    for (const [body, code, message] of issues) {
      const answer = await cp.call('POST', '/labs/assets/assets', body);
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      expect(answer.body.error).toMatchObject({ code, message: expect.stringMatching(message) });
    }
    // the CLI refuses an amount of 0 itself, in words (exit 2), not with the API schema's path
    for (const args of [
      ['asset', 'send', 'bob', 'carol', 'LAB', '0'],
      ['asset', 'issue', 'carol', 'TOK', '0'],
    ]) {
      expect(await reglab(...args)).toEqual({
        code: 2,
        stdout: '',
        stderr: 'reglab: amount must be 1 or more, not 0\n',
      });
    }
    expect(await held()).toEqual(before);
    expect(
      (await cp.call('GET', '/labs/assets/assets')).body.assets.map((asset: { ticker: string }) => asset.ticker),
    ).not.toContain('TOK');
  });

  it('refuses a lab.yaml with broken assets with the line of each problem', async () => {
    const broken =
      'name: broken\nnodes:\n  - { name: a, kind: rgb }\nassets:\n  - ticker: LAB\n    supply: 10\n    issuer: a\n    distribute: { a: 5 }\n';
    const { status, body } = await cp.call('POST', '/labs', { yaml: broken, file: 'broken.yaml' });
    expect(status).toBe(400);
    expect(body.error.code).toBe('INVALID_LAB_SPEC');
    expect(body.error.problems).toEqual([
      expect.objectContaining({ file: 'broken.yaml', line: 8, path: 'assets[0].distribute.a' }),
    ]);
  });

  it("shows each node's assets in `reglab status` and `reglab asset balance`", async () => {
    const { code, stdout: status } = await reglab('status');
    expect(code).toBe(0);
    expect(status).toMatch(/carol\s+on-chain \d+ sat\n(\s+◆ .*\n)*\s+◆ LAB 320 \(nia rgb:/);
    expect(status).toMatch(/◆ GOLD 4000 \(cfa rgb:/);
    expect((await reglab('asset', 'balance', 'issuer')).stdout).toMatch(
      /^issuer:\n {2}LAB 500 \(nia rgb:\S+\)\n {2}GOLD 250 \(cfa rgb:\S+\)\n {2}ART 0 \(uda rgb:\S+\)\n$/,
    );
  });
});
