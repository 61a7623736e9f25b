// `reglab status` and GET /labs/{name} while a node does not answer: an lnd node, then the chain
// node, frozen with SIGSTOP. The view answers while the node is still frozen, with that node's part
// saying it does not answer within the lab's time-out and the others' figures as usual (before, a
// frozen lnd held the view for 15 to 54 s, a frozen chain node for minutes). The lab gives each
// answer seconds (status.answer_timeout_seconds), so that on a busy machine the nodes that answer
// are never taken for frozen ones. The node asked for alone (GET /labs/{name}/nodes/{node}) is waited
// for longer, and says so too.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ONE_NODE_ANSWER_TIMEOUT_SECONDS } from '../../control-plane/src/lab/inspect.js';
import { waitFor } from '../../lib/wait.js';
import { reglabOf } from '../support/cli.js';
import {
  bringUpLab,
  startTestControlPlane,
  type TestControlPlane,
  pidOf as pidOfService,
} from '../support/control-plane.js';

const LAB = 'frozen';
const ANSWER_TIMEOUT_SECONDS = 5;
const NOT_ANSWERING = `not answering (no answer within ${ANSWER_TIMEOUT_SECONDS} s)`;
const YAML = `name: ${LAB}
indexer:
  enabled: false
nodes:
  - name: alice
  - name: bob
channels:
  - from: alice
    to: bob
    capacity_sat: 1000000
status:
  answer_timeout_seconds: ${ANSWER_TIMEOUT_SECONDS}
`;
/** How long the view, and the test, wait for a call that does not hang: far longer than the lab's time-out. */
const CLIENT_TIMEOUT_MS = 60_000;

type NodeView = { name: string; status: string; error?: string; chainBalanceSat?: number; channels?: unknown[] };

describe('status while a node does not answer', () => {
  let cp: TestControlPlane;
  const pidOf = (name: string) => pidOfService(cp, LAB, name);
  const frozen = (pid: number) => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('T');
  };
  const view = async () => {
    const response = await fetch(`${cp.plane.url}/labs/${LAB}`, { signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
    expect(response.status).toBe(200);
    return response.json();
  };
  /** Runs `check` with `service`'s process frozen, then lets it go and waits until the lab is ready again. */
  const whileFrozen = async (service: string, check: (pid: number) => Promise<void>) => {
    const pid = pidOf(service);
    process.kill(pid, 'SIGSTOP');
    try {
      await check(pid);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    await waitFor(async () => (await view()).status === 'ready', { timeoutMs: 120_000, what: 'the lab ready again' });
  };

  beforeAll(async () => {
    cp = await startTestControlPlane();
    await bringUpLab(cp, YAML, LAB);
  });

  afterAll(async () => {
    await cp?.stop();
  });

  it('an lnd node frozen: its part says it is not answering, the other node and the chain show their figures', async () => {
    await whileFrozen('bob', async (pid) => {
      const lab = await view();
      expect(frozen(pid)).toBe(true);
      const nodes: Record<string, NodeView> = Object.fromEntries(lab.nodes.map((node: NodeView) => [node.name, node]));
      expect(nodes.bob.error).toBe(NOT_ANSWERING);
      expect(nodes.alice.error).toBeUndefined();
      expect(nodes.alice.chainBalanceSat).toBeGreaterThan(0);
      expect(nodes.alice.channels).toHaveLength(1);
      expect(lab.chain.height).toBeGreaterThan(0);

      const status = await reglabOf(cp.home, 'status');
      expect(status.stdout).toContain(`\n    bob: ${NOT_ANSWERING}`);
      expect(status.stdout).toMatch(/^ {4}alice\s+on-chain \d+ sat/m);
      // asked for alone, a node is waited for longer than status waits for each, and still not for ever
      const alone = await fetch(`${cp.plane.url}/labs/${LAB}/nodes/bob`, {
        signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
      });
      expect(alone.status).toBe(200);
      expect((await alone.json()).error).toBe(`not answering (no answer within ${ONE_NODE_ANSWER_TIMEOUT_SECONDS} s)`);
      expect(frozen(pid)).toBe(true);
    });
  });

  it('the chain node frozen: the chain says it is not answering, and the view answers', async () => {
    await whileFrozen('chain', async (pid) => {
      const lab = await view();
      expect(frozen(pid)).toBe(true);
      expect(lab.chain.height).toBeUndefined();
      expect(lab.chain.error).toBe(NOT_ANSWERING);
      const status = await reglabOf(cp.home, 'status');
      expect(status.stdout).toContain(`\n  chain: btcd ${NOT_ANSWERING}`);
      expect(frozen(pid)).toBe(true);
    });
  });
});
