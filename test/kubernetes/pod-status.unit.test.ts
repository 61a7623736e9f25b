// Reading a service's runs from its pod's status, as the kubelet reports them: starting, running,
// killed, restarted, waiting out its back-off, unable to start, deleted.
import type { V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  handleToTakeBack,
  type KubernetesHandle,
  latestRun,
  runAlive,
  runExit,
} from '../../control-plane/src/runtimes/kubernetes/pod-status.js';
import { describeExit } from '../../control-plane/src/supervisor/policy.js';

const killed = { exitCode: 137, reason: 'Error', startedAt: new Date(), finishedAt: new Date() };

function pod(
  status: Partial<V1ContainerStatus> | undefined,
  extra: { phase?: string; deleting?: boolean } = {},
): V1Pod {
  return {
    metadata: {
      name: 'alice',
      namespace: 'reglab-k',
      uid: 'uid-1',
      ...(extra.deleting ? { deletionTimestamp: new Date() } : {}),
    },
    status: {
      phase: extra.phase ?? 'Running',
      containerStatuses: status
        ? [{ name: 'alice', image: 'i', imageID: '', ready: false, restartCount: 0, ...status } as V1ContainerStatus]
        : undefined,
    },
  };
}
const handle = (restarts: number, uid = 'uid-1'): KubernetesHandle => ({
  runtime: 'kubernetes',
  namespace: 'reglab-k',
  pod: 'alice',
  uid,
  restarts,
});

describe('pod status', () => {
  it('a new pod is starting, then running; its first run is alive all along', () => {
    for (const starting of [
      pod(undefined, { phase: 'Pending' }),
      pod({ state: { waiting: { reason: 'ContainerCreating' } } }),
    ]) {
      expect(latestRun(starting, 'alice')).toMatchObject({ number: 0, state: 'starting' });
      expect(runAlive(starting, handle(0), 'alice')).toBe(true);
    }
    const running = pod({ state: { running: { startedAt: new Date() } } });
    expect(latestRun(running, 'alice')).toMatchObject({ number: 0, state: 'running', final: false });
    expect(runAlive(running, handle(0), 'alice')).toBe(true);
    expect(handleToTakeBack(running, 'alice')).toEqual(handle(0));
  });

  it('a run killed with SIGKILL is over: killed by SIGKILL, with the restart count', () => {
    const dead = pod({ state: { terminated: killed } });
    expect(runAlive(dead, handle(0), 'alice')).toBe(false);
    expect(runExit(dead, handle(0), 'alice')).toEqual({ code: 137, signal: 'SIGKILL', restartCount: 0 });
    expect(describeExit(runExit(dead, handle(0), 'alice'))).toBe('killed by SIGKILL (restart count 0)');
  });

  it('while the kubelet waits to restart it, the last run is over and the next one is on its way', () => {
    const backingOff = pod({
      restartCount: 1,
      state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 10s restarting failed container' } },
      lastState: { terminated: killed },
    });
    expect(latestRun(backingOff, 'alice')).toMatchObject({ number: 1, state: 'ended' });
    expect(runAlive(backingOff, handle(1), 'alice')).toBe(false);
    expect(runExit(backingOff, handle(1), 'alice')).toMatchObject({ signal: 'SIGKILL', restartCount: 1 });
    // the supervisor takes the service back for the next run, which the kubelet is about to start
    const next = handleToTakeBack(backingOff, 'alice');
    expect(next.restarts).toBe(2);
    expect(runAlive(backingOff, next, 'alice')).toBe(true);
  });

  it('once the kubelet restarted the container, the old run is over and the new one runs', () => {
    const restarted = pod({
      restartCount: 1,
      state: { running: { startedAt: new Date() } },
      lastState: { terminated: killed },
    });
    expect(runAlive(restarted, handle(0), 'alice')).toBe(false);
    expect(runExit(restarted, handle(0), 'alice')).toEqual({ code: 137, signal: 'SIGKILL', restartCount: 1 });
    expect(handleToTakeBack(restarted, 'alice')).toEqual(handle(1));
    expect(runAlive(restarted, handle(1), 'alice')).toBe(true);
  });

  it("a pod that will not run the container again ends every run (Never's Failed phase, a deleted pod, another pod)", () => {
    const failed = pod({ state: { terminated: { ...killed, exitCode: 1 } } }, { phase: 'Failed' });
    expect(latestRun(failed, 'alice')).toMatchObject({ state: 'ended', final: true });
    expect(runAlive(failed, handle(1), 'alice')).toBe(false);
    expect(describeExit(runExit(failed, handle(0), 'alice'))).toBe('exited with code 1 (restart count 0)');
    const deleting = pod({ state: { running: { startedAt: new Date() } } }, { deleting: true });
    expect(runAlive(deleting, handle(0), 'alice')).toBe(false);
    expect(runAlive(pod({ state: { running: {} } }), handle(0, 'uid-2'), 'alice')).toBe(false);
    expect(runAlive(undefined, handle(0), 'alice')).toBe(false);
  });

  it('an image the node cannot have is a run that ends at once, saying why', () => {
    const noImage = pod({
      state: {
        waiting: {
          reason: 'ErrImageNeverPull',
          message: 'Container image "localhost/reglab-lnd:local" is not present with pull policy of Never',
        },
      },
    });
    expect(runAlive(noImage, handle(0), 'alice')).toBe(false);
    expect(describeExit(runExit(noImage, handle(0), 'alice'))).toBe(
      'ErrImageNeverPull: Container image "localhost/reglab-lnd:local" is not present with pull policy of Never (restart count 0)',
    );
  });

  it('an out-of-memory kill says so', () => {
    const oom = pod({ state: { terminated: { ...killed, reason: 'OOMKilled' } } });
    expect(describeExit(runExit(oom, handle(0), 'alice'))).toBe('killed by SIGKILL (out of memory) (restart count 0)');
  });

  it('a pod the scheduler cannot place is starting, and says why', () => {
    const pending: V1Pod = {
      ...pod(undefined, { phase: 'Pending' }),
      status: {
        phase: 'Pending',
        conditions: [
          { type: 'PodScheduled', status: 'False', message: '0/1 nodes are available: 1 Insufficient cpu.' },
        ],
      },
    };
    expect(latestRun(pending, 'alice')).toMatchObject({
      state: 'starting',
      exit: { reason: 'not scheduled: 0/1 nodes are available: 1 Insufficient cpu.' },
    });
    expect(runAlive(pending, handle(0), 'alice')).toBe(true);
  });
});
