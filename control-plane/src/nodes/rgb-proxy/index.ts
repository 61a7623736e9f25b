// The lab's RGB consignment proxy (services/rgb-proxy): how rgb nodes hand each other transfers.
import { SERVICES_IMAGE } from '../../images/recipes.js';
import { proxyEndpoint } from '../../../../lib/rgb/endpoints.js';
import { answersHttp, projectService } from '../project-service.js';
import type { KindDefinition } from '../types.js';

export const rgbProxy: KindDefinition = {
  ports: { http: 3000 },
  image: SERVICES_IMAGE,
  public: true,
  dependsOn: () => [],
  launch(access, service) {
    const placement = access.placementFor(service.name);
    return projectService(
      'services/rgb-proxy/src/main.js',
      placement,
      'http',
      { DATA_DIR: placement.dataDir },
      { lowRate: true },
    );
  },
  probe: (access, service) => answersHttp(`http://${access.host.reach(service.name, 'http')}/health`),
  describe: async (access, service) => ({
    url: `http://${access.host.reach(service.name, 'http')}`,
    endpoint: proxyEndpoint(access.host.reach(service.name, 'http')),
  }),
  credentials: async (access, service) => ({ endpoint: proxyEndpoint(access.host.reach(service.name, 'http')) }),
};
