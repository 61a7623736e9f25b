// Version 1 had one step that version 2 words differently: `expect: { node, channel_balance_sat,
// chain_balance_sat, height }` with no action. It becomes a `lab` step whose expectations are
// checked again for up to 10 s, as version 1 did (a payee's balance settles a moment after the
// payer's payment returns).

const LEGACY_KEYS = ['node', 'channel_balance_sat', 'chain_balance_sat', 'height'];

type Bound = number | { at_least?: number; at_most?: number };

/** An `expect` with no action beside it, whose keys are version 1's rather than paths. */
export function isLegacyExpectStep(step: Record<string, unknown>): boolean {
  const keys = Object.keys(step).filter((key) => key !== 'expect_error');
  const expect = step.expect;
  return (
    keys.length === 1 &&
    keys[0] === 'expect' &&
    expect !== null &&
    typeof expect === 'object' &&
    Object.keys(expect).some((key) => LEGACY_KEYS.includes(key)) &&
    !Object.keys(expect).some((key) => key.startsWith('$'))
  );
}

export function translateLegacyExpect(step: Record<string, unknown>): Record<string, unknown> {
  const legacy = step.expect as {
    node?: string;
    channel_balance_sat?: Bound;
    chain_balance_sat?: Bound;
    height?: Bound;
  };
  const expect: Record<string, unknown> = {};
  const node = `$.nodes[name=${legacy.node}]`;
  if (legacy.height !== undefined) expect['$.chain.height'] = matcher(legacy.height);
  if (legacy.node !== undefined) expect[node] = { exists: true };
  if (legacy.channel_balance_sat !== undefined)
    expect[`${node}.channelBalanceSat`] = matcher(legacy.channel_balance_sat);
  if (legacy.chain_balance_sat !== undefined) expect[`${node}.chainBalanceSat`] = matcher(legacy.chain_balance_sat);
  return {
    name: `expect ${JSON.stringify(legacy)}`,
    lab: {},
    expect,
    retry: { for: '10s', interval: '250ms' },
    ...(step.expect_error === undefined ? {} : { expect_error: step.expect_error }),
  };
}

function matcher(bound: Bound): unknown {
  return typeof bound === 'number' ? { equals: bound } : bound;
}
