import { describe, expect, it } from 'vitest';
import { summaryOf } from './schemathesis.js';

// The tail of a passing `st run`, as schemathesis 4 prints it.
const REPORT = `Schemathesis v4.1.0
━━━━━━━━━━━━━━━━━━━━

 ✅  Loaded specification from http://127.0.0.1:40123/openapi.json (in 0.04s)

=================================== SUMMARY ====================================

API Operations:
  Selected: 3/3
  Tested: 3

Warnings:
  ⚠️ Missing test data: 1 operation repeatedly returned 404 responses

Test cases:
  412 generated, 412 passed

Seed: 12

============================= 1 warning in 25.01s ==============================
`;

describe('the schemathesis summary a passing conformance test prints', () => {
  it('keeps the counts and warnings', () => {
    const summary = summaryOf(REPORT);
    expect(summary).toContain('Selected: 3/3');
    expect(summary).toContain('412 generated, 412 passed');
    expect(summary).toContain('Missing test data');
    expect(summary).not.toContain('Loaded specification');
  });

  it('has no line in the closing-line format of pytest, which CI would read as a run of no test', () => {
    const pytestClosingLine = /^=+ .* in [\d.]+s =+$/;
    expect(REPORT.split('\n').some((line) => pytestClosingLine.test(line))).toBe(true);
    expect(
      summaryOf(REPORT)
        .split('\n')
        .filter((line) => pytestClosingLine.test(line) || /^=+/.test(line)),
    ).toEqual([]);
  });
});
