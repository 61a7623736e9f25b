// How a container ended, as the supervisor reports it ("killed by SIGKILL", "exited with code 1").
import { describe, expect, it } from 'vitest';
import { containerExit } from '../../control-plane/src/runtimes/docker/exit-status.js';
import { describeExit } from '../../control-plane/src/supervisor/policy.js';

describe('a container exit', () => {
  it('names the signal its init reports as 128 + N', () => {
    expect(describeExit(containerExit(137, false))).toBe('killed by SIGKILL');
    expect(describeExit(containerExit(143, false))).toBe('killed by SIGTERM');
    expect(describeExit(containerExit(139, false))).toBe('killed by SIGSEGV');
  });

  it('keeps a plain exit code, clean or not', () => {
    expect(containerExit(0, false)).toEqual({ code: 0 });
    expect(describeExit(containerExit(1, false))).toBe('exited with code 1');
  });

  it('says when the kernel killed it for its memory', () => {
    expect(describeExit(containerExit(137, true))).toBe('killed by SIGKILL (out of memory)');
  });
});
