import { describe, expect, it } from 'vitest';
import { formatNetStatus, parseDurationMs, parsePercent, parseRate } from '../../control-plane/src/cli/net.js';
import {
  describeFault,
  isCutOff,
  type Link,
  type NetworkState,
  networkSummary,
} from '../../control-plane/src/network/model.js';
import { toxicsFor } from '../../control-plane/src/network/toxics.js';

const link = (from: string, to: string, port = 'p2p'): Link => ({ name: `${from}>${to}:${port}`, from, to, port });
const links = [
  link('alice', 'bob'),
  link('bob', 'alice'),
  link('alice', 'chain', 'rpc'),
  link('carol', 'bob'),
  link('carol', 'alice'),
  link('carol', 'chain', 'rpc'),
];

describe('a link fault', () => {
  it('is a delay both ways, a rate both ways, and resets drawn once per connection', () => {
    expect(toxicsFor({ latencyMs: 200, jitterMs: 50, bandwidthKBps: 64, resetProbability: 0.1 })).toEqual([
      {
        name: 'latency_upstream',
        type: 'latency',
        stream: 'upstream',
        toxicity: 1,
        attributes: { latency: 200, jitter: 50 },
      },
      {
        name: 'latency_downstream',
        type: 'latency',
        stream: 'downstream',
        toxicity: 1,
        attributes: { latency: 200, jitter: 50 },
      },
      { name: 'bandwidth_upstream', type: 'bandwidth', stream: 'upstream', toxicity: 1, attributes: { rate: 64 } },
      { name: 'bandwidth_downstream', type: 'bandwidth', stream: 'downstream', toxicity: 1, attributes: { rate: 64 } },
      { name: 'reset', type: 'reset_peer', stream: 'upstream', toxicity: 0.1, attributes: { timeout: 0 } },
    ]);
    expect(toxicsFor({ partitioned: true })).toEqual([]);
    expect(toxicsFor(undefined)).toEqual([]);
  });

  it('is said in words', () => {
    expect(describeFault({ latencyMs: 200, jitterMs: 50 })).toBe('delay 200 ms ± 50 ms');
    expect(describeFault({ latencyMs: 200, bandwidthKBps: 64, resetProbability: 0.125 })).toBe(
      'delay 200 ms, bandwidth 64 KB/s, loss 12.5 %',
    );
    expect(describeFault({ latencyMs: 200, partitioned: true })).toBe('partitioned');
    expect(describeFault(undefined)).toBe('no fault');
  });

  it('cuts a node off once its links with every peer are partitioned, whatever its chain link', () => {
    const network: NetworkState = { links, faults: { 'bob|carol': { partitioned: true } } };
    expect(isCutOff(network, 'carol')).toBe(false);
    network.faults['carol|chain'] = { partitioned: true };
    expect(isCutOff(network, 'carol')).toBe(false);
    network.faults['alice|carol'] = { partitioned: true };
    expect(isCutOff(network, 'carol')).toBe(true);
    expect(isCutOff(network, 'bob')).toBe(false);
    delete network.faults['carol|chain'];
    expect(networkSummary(network)).toEqual({
      links: [
        { between: ['alice', 'carol'], fault: { partitioned: true }, description: 'partitioned' },
        { between: ['bob', 'carol'], fault: { partitioned: true }, description: 'partitioned' },
      ],
      cutOff: ['carol'],
    });
  });
});

describe('reglab net arguments', () => {
  it('take durations, percentages and rates, and refuse what is not one', () => {
    expect(parseDurationMs('the delay', '200ms')).toBe(200);
    expect(parseDurationMs('the delay', '1.5s')).toBe(1500);
    expect(parseDurationMs('the delay', '0')).toBe(0);
    expect(() => parseDurationMs('the delay', '200')).toThrow('the delay must be a duration such as 200ms');
    expect(parsePercent('10%')).toBe(10);
    expect(parsePercent('0.5')).toBe(0.5);
    expect(() => parsePercent('150%')).toThrow('from 0 to 100');
    expect(parseRate('64KB/s')).toBe(64);
    expect(parseRate('64')).toBe(64);
    expect(() => parseRate('fast')).toThrow('whole number of KB/s');
  });

  it('status names each pair with its fault and each proxy with its toxics', () => {
    const text = formatNetStatus({
      lab: 'net',
      faults: true,
      links: [
        {
          between: ['alice', 'bob'],
          description: 'delay 200 ms',
          proxies: [
            {
              name: 'alice>bob:p2p',
              listen: '127.0.0.1:4001',
              upstream: '127.0.0.1:4002',
              enabled: true,
              toxics: [
                {
                  name: 'latency_upstream',
                  type: 'latency',
                  stream: 'upstream',
                  toxicity: 1,
                  attributes: { latency: 200, jitter: 0 },
                },
              ],
            },
          ],
        },
      ],
      cutOff: [],
    });
    expect(text).toContain('alice ↔ bob');
    expect(text).toContain('delay 200 ms');
    expect(text).toContain('alice>bob:p2p');
    expect(text).toContain('latency upstream (latency=200 jitter=0)');
    expect(formatNetStatus({ lab: 'net', faults: false, links: [], cutOff: [] })).toContain(
      'network: { faults: true }',
    );
  });
});
