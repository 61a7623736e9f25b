// The scenario language's asset steps on a lab of two rgb nodes (the default lab has none, so
// library.test.ts cannot run scenarios/rgb/): the library's asset scenario passes, and it runs
// again on the same lab (a new ticker each run).
// Its own lab: rgb nodes, which the default lab has not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScenarioFile } from '../../scenarios/src/load/load-scenario.js';
import { runScenario } from '../../scenarios/src/run/runner.js';
import { failuresOf, startLab, type RunningLab } from './support.js';

const LAB = `name: scenario-assets
nodes:
  - { name: issuer, kind: rgb, funding_sat: 1000000 }
  - { name: holder, kind: rgb, funding_sat: 1000000 }
`;
const SCENARIO = 'scenarios/rgb/asset-issue-send.yaml';

describe('asset steps on a lab of rgb nodes', () => {
  let lab: RunningLab;

  beforeAll(async () => {
    lab = await startLab('scenario-assets', LAB);
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it(`${SCENARIO} passes, twice on one lab, with exact balances`, async () => {
    const tickers: string[] = [];
    for (let run = 0; run < 2; run++) {
      const report = await runScenario(loadScenarioFile(SCENARIO), { api: lab.client, lab: lab.name });
      expect(failuresOf(report)).toEqual([]);
      expect(report.passed).toBe(true);
      const issued = (
        await lab.client.request<{ assets: { ticker: string; holders: Record<string, number> }[] }>(
          'GET',
          `/labs/${lab.name}/assets`,
        )
      ).assets.filter((asset) => !tickers.includes(asset.ticker));
      expect(issued.map((asset) => asset.holders)).toEqual([{ issuer: 820, holder: 180 }]);
      tickers.push(issued[0]!.ticker);
    }
    expect(tickers[0]).not.toBe(tickers[1]);
  });
});
