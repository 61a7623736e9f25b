// The kubernetes block's defaults, the images' names on a cluster, each service's resources, and
// the entry points the catalog records for the pods (which must be the Containerfiles').
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RECIPES } from '../../control-plane/src/images/catalog.js';
import { resourcesFor } from '../../control-plane/src/runtimes/kubernetes/resources.js';
import { clusterImageRef, kubernetesSettings } from '../../control-plane/src/runtimes/kubernetes/settings.js';

describe('kubernetes settings', () => {
  it('defaults: $KUBECONFIG (its first file), else ~/.kube/config; namespace reglab-<lab>; images loaded, never pulled', () => {
    expect(kubernetesSettings({ name: 'k' }, { KUBECONFIG: '/a/config:/b/config' })).toEqual({
      kubeconfig: '/a/config',
      context: undefined,
      namespace: 'reglab-k',
      storageClass: undefined,
      storageSize: '1Gi',
      imageRegistry: undefined,
      imagePullPolicy: 'Never',
      access: 'port-forward',
      resources: {},
    });
    expect(kubernetesSettings({ name: 'k' }, {}).kubeconfig).toBe(join(homedir(), '.kube', 'config'));
    // inside a pod without a kubeconfig: its service account
    expect(kubernetesSettings({ name: 'k' }, { KUBERNETES_SERVICE_HOST: '10.96.0.1' }).kubeconfig).toBeUndefined();
  });

  it("lab.yaml's block wins; a registry makes images pulled when missing", () => {
    const settings = kubernetesSettings(
      {
        name: 'k',
        kubernetes: { kubeconfig: '~/kc', context: 'c', namespace: 'n', image_registry: 'r.example/reglab/' },
      },
      { KUBECONFIG: '/ignored' },
    );
    expect(settings).toMatchObject({
      kubeconfig: join(homedir(), 'kc'),
      context: 'c',
      namespace: 'n',
      imagePullPolicy: 'IfNotPresent',
    });
    expect(clusterImageRef('localhost/reglab-lnd:local', settings.imageRegistry)).toBe(
      'r.example/reglab/reglab-lnd:local',
    );
    expect(clusterImageRef('localhost/reglab-lnd:local', undefined)).toBe('localhost/reglab-lnd:local');
  });

  it("resources: the kind's, then lab.yaml's default, kind and service, amount by amount", () => {
    expect(resourcesFor('alice', 'lnd')).toEqual({
      requests: { cpu: '50m', memory: '96Mi' },
      limits: { memory: '768Mi' },
    });
    expect(resourcesFor('faucet', 'faucet')).toEqual({
      requests: { cpu: '20m', memory: '64Mi' },
      limits: { memory: '512Mi' },
    });
    expect(
      resourcesFor('alice', 'lnd', {
        default: { requests: { cpu: '10m' } },
        lnd: { limits: { memory: '1Gi', cpu: '2' } },
        alice: { requests: { memory: '200Mi' } },
        bob: { requests: { cpu: '1' } },
      }),
    ).toEqual({ requests: { cpu: '10m', memory: '200Mi' }, limits: { memory: '1Gi', cpu: '2' } });
  });

  it("records each image's entry point and user as its Containerfile declares them", () => {
    for (const recipe of Object.values(RECIPES)) {
      if (!recipe.folder) continue;
      const containerfile = readFileSync(join('images', recipe.folder, 'Containerfile'), 'utf8');
      const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(containerfile)?.[1];
      expect(recipe.entrypoint, recipe.id).toEqual(JSON.parse(entrypoint!));
      expect(recipe.user, recipe.id).toBe(/^USER (\S+)$/m.exec(containerfile)?.[1]);
    }
  });
});
