// Where the lab's services answer, from the control plane's view of the lab (services[].info).
import { StepFailure } from './failure.js';

export interface ServiceView {
  name: string;
  kind: string;
  status: string;
  info: Record<string, unknown>;
  error?: string;
  restarts?: number;
  restartPolicy?: string;
}

export interface LabView {
  services: ServiceView[];
  nodes: { name: string; pubkey?: string }[];
}

export class ServiceDirectory {
  private cached?: Promise<LabView>;

  constructor(private readonly inspect: () => Promise<LabView>) {}

  /** The lab as the control plane sees it now. */
  fresh(): Promise<LabView> {
    this.cached = this.inspect();
    this.cached.catch(() => (this.cached = undefined));
    return this.cached;
  }

  /** A service's address changes only when it is started again, so it is looked up once. */
  private view(): Promise<LabView> {
    return this.cached ?? this.fresh();
  }

  async service(name: string, view?: LabView): Promise<ServiceView> {
    const lab = view ?? (await this.view());
    const service = lab.services.find((candidate) => candidate.name === name);
    if (!service)
      throw new StepFailure(
        `the lab has no service "${name}" (services: ${lab.services.map((s) => s.name).join(', ')})`,
        { code: 'NO_SUCH_SERVICE' },
      );
    return service;
  }

  /** The base URL of an HTTP service, without a trailing slash. */
  async url(name: string): Promise<string> {
    const url = (await this.service(name)).info.url;
    if (typeof url !== 'string')
      throw new StepFailure(`the lab's ${name} has no URL in its info (is it an HTTP service?)`);
    return url.replace(/\/$/, '');
  }

  /** The lab's Electrum server (the indexer): its service name, host and port. */
  async electrum(): Promise<{ service: string; host: string; port: number }> {
    const lab = await this.view();
    const server = lab.services.find((service) => typeof service.info.electrum === 'string');
    if (!server)
      throw new StepFailure('the lab runs no Electrum server (lab.yaml: indexer.enabled: true)', {
        code: 'NO_SUCH_SERVICE',
      });
    const { hostname, port } = new URL(server.info.electrum as string);
    return { service: server.name, host: hostname, port: Number(port) };
  }

  async pubkey(node: string): Promise<string> {
    const found = (await this.view()).nodes.find((candidate) => candidate.name === node);
    if (!found?.pubkey)
      throw new StepFailure(`the lab has no Lightning node "${node}" with a known pubkey`, { code: 'NO_SUCH_NODE' });
    return found.pubkey;
  }
}
