import { describe, expect, it } from 'vitest';
import { durationMs } from '../../scenarios/src/language/durations.js';
import { unmetExpectations } from '../../scenarios/src/language/expectations.js';
import { parsePath, select } from '../../scenarios/src/language/json-path.js';
import { interpolate, referencedNames } from '../../scenarios/src/language/templates.js';

const node = {
  name: 'alice',
  channels: [
    { partner: 'bob', localSat: 4_000_000 },
    { partner: 'carol', localSat: 250_000 },
  ],
  'weird key': true,
};

describe('paths into a step output', () => {
  it('picks keys, indexes from both ends, lengths and the first item with a field', () => {
    expect(select(node, '$.name')).toBe('alice');
    expect(select(node, '$.channels[1].partner')).toBe('carol');
    expect(select(node, '$.channels[-1].localSat')).toBe(250_000);
    expect(select(node, '$.channels.length')).toBe(2);
    expect(select(node, '$.channels[partner=carol].localSat')).toBe(250_000);
    expect(select(node, "$['weird key']")).toBe(true);
    expect(select(node, '$')).toBe(node);
  });

  it('says where a path stops leading anywhere', () => {
    expect(() => select(node, '$.channels[5]')).toThrow('$.channels has 2 item(s), no [5]');
    expect(() => select(node, '$.chanels')).toThrow('$ has no "chanels" (it has name, channels, weird key)');
    expect(() => select(node, '$.channels[partner=dave]')).toThrow('$.channels has no item whose partner is "dave"');
    expect(() => select(node, '$.name.first')).toThrow('$.name is string "alice", not an object with "first"');
  });

  it('refuses paths it cannot read', () => {
    expect(() => parsePath('payment_request')).toThrow('paths start with $');
    expect(() => parsePath('$.a..b')).toThrow('cannot read "..b"');
  });
});

describe('${...} templates', () => {
  const vars: Record<string, unknown> = {
    invoice: { payment_request: 'lnbcrt1...', amount_msat: '2500' },
    before: 1_000,
    paid: 250,
    nodes: ['alice', 'bob'],
  };
  const lookup = (name: string) => vars[name];

  it('keeps the type of a value that is the whole string, and writes it out inside text', () => {
    expect(interpolate('${before}', lookup)).toBe(1_000);
    expect(interpolate('${invoice}', lookup)).toEqual(vars.invoice);
    expect(interpolate('pay ${invoice.payment_request} now', lookup)).toBe('pay lnbcrt1... now');
    expect(interpolate({ list: ['${nodes[1]}'], n: 3 }, lookup)).toEqual({ list: ['bob'], n: 3 });
  });

  it('adds and subtracts whole numbers, decimal strings included', () => {
    expect(interpolate('${before - paid + 10}', lookup)).toBe(760);
    expect(interpolate('${invoice.amount_msat + 1}', lookup)).toBe(2501);
    expect(interpolate('${99999999999999999999 + 1}', lookup)).toBe('100000000000000000000');
    expect(() => interpolate('${invoice.payment_request + 1}', lookup)).toThrow('is not a whole number');
  });

  it('names what it cannot resolve or read', () => {
    expect(() => interpolate('${missing}', lookup)).toThrow('no variable "missing"');
    expect(() => interpolate('${invoice.hash}', lookup)).toThrow('invoice has no "hash"');
    expect(() => referencedNames('${before * 2}')).toThrow('only + and - may join values');
    expect(referencedNames('${a.b} and ${c + 1} ${run.id}')).toEqual(['a', 'c', 'run']);
  });
});

describe('expectations', () => {
  const output = { status: 'succeeded', amount_msat: '2500', fee: 3, payment_request: 'lnbcrt25u1p...', list: [1, 2] };

  it('holds when every path matches', () => {
    expect(
      unmetExpectations(output, {
        '$.status': 'succeeded',
        '$.amount_msat': 2500,
        '$.fee': { at_least: 1, at_most: '10' },
        '$.payment_request': { matches: '^lnbcrt' },
        '$.status.length': 9,
        '$.list': { equals: [1, 2] },
        '$.missing': { exists: false },
        '$.list[0]': { exists: true },
      }),
    ).toEqual([]);
    expect(unmetExpectations(output, { '$.status': { one_of: ['pending', 'succeeded'] } })).toEqual([]);
  });

  it('says what was found and what was expected', () => {
    expect(
      unmetExpectations(output, {
        '$.status': 'failed',
        '$.fee': { at_least: 5 },
        '$.amount_msat': { at_most: 2000 },
        '$.payment_request': { matches: '^lnbc1' },
        '$.status ': { one_of: ['x'] },
        '$.nothing': 1,
      }),
    ).toEqual([
      '$.status is "succeeded", expected "failed"',
      '$.fee is 3, expected at least 5',
      '$.amount_msat is "2500", expected at most 2000',
      '$.payment_request is "lnbcrt25u1p...", expected to match /^lnbc1/',
      'cannot read " " in the path "$.status "' + " (write .key, ['key'], [0], [-1] or [field=value])",
      '$ has no "nothing" (it has status, amount_msat, fee, payment_request, list)',
    ]);
  });

  it('compares big amounts exactly', () => {
    expect(unmetExpectations({ msat: '9007199254740993' }, { '$.msat': { at_least: '9007199254740993' } })).toEqual([]);
    expect(unmetExpectations({ msat: '9007199254740993' }, { '$.msat': '9007199254740992' })).toHaveLength(1);
  });
});

describe('durations', () => {
  it('reads seconds and units', () => {
    expect([durationMs(30), durationMs(0.5), durationMs('500ms'), durationMs('30s'), durationMs('2m')]).toEqual([
      30_000, 500, 500, 30_000, 120_000,
    ]);
    expect([durationMs('2h'), durationMs(0), durationMs('fast'), durationMs(true)]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});
