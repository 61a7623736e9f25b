// The lnd clients of lib/lightning/lnd.ts against those ln-service's own loader (proto-loader) makes
// from the same proto files and options: the same methods, and the same bytes on the wire.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { connectLnd, connectLndUnauthenticated } from '../../lib/lightning/lnd/connection.js';
import { lightningDir, lightningRequire } from '../../lib/lightning/lnd/package.js';

interface MethodAttributes {
  path: string;
  requestStream: boolean;
  responseStream: boolean;
  originalName?: string;
  requestSerialize(message: object): Uint8Array;
  responseDeserialize(buffer: Uint8Array): object;
  responseSerialize?(message: object): Uint8Array;
}

type ClientClass = { prototype: Record<string, MethodAttributes>; service: Record<string, MethodAttributes> };

const services = lightningRequire('./grpc/grpc_services.json') as {
  packageTypes: Record<string, string>;
  protoFiles: Record<string, string>;
  protosDir: string;
  serviceTypes: Record<string, string>;
  unauthenticatedServiceTypes: Record<string, string>;
};
const grpcOptions = lightningRequire('./lnd_grpc/grpc_options') as object;
const protoLoader = lightningRequire('@grpc/proto-loader') as {
  loadSync(file: string, options: object): Record<string, Record<string, MethodAttributes>>;
};

/** What proto-loader gives grpc-js for `service`: its methods, with the server-side halves too. */
function loaderMethods(service: string): Record<string, MethodAttributes> {
  const definition = protoLoader.loadSync(
    join(lightningDir, 'lnd_grpc', services.protosDir, services.protoFiles[service]!),
    grpcOptions,
  );
  return definition[`${services.packageTypes[service]}.${service}`]!;
}

const opened: { close(): void }[] = [];
const clientOf = (connection: object, type: string) => {
  const client = (connection as Record<string, { close(): void }>)[type]!;
  opened.push(client);
  return (client.constructor as unknown as ClientClass).service;
};
// nothing listens there: clients connect on their first call, and no test calls
const authenticated = connectLnd({
  socket: '127.0.0.1:1',
  certBase64: Buffer.from('unused').toString('base64'),
  macaroonHex: '0201',
});
const unauthenticated = connectLndUnauthenticated('127.0.0.1:1', Buffer.from('unused').toString('base64'));
const everyService = [
  ...Object.entries(services.serviceTypes).map(([type, service]) => ({
    service,
    methods: () => clientOf(authenticated, type),
  })),
  ...Object.entries(services.unauthenticatedServiceTypes).map(([type, service]) => ({
    service,
    methods: () => clientOf(unauthenticated, type),
  })),
];

afterAll(() => {
  for (const client of opened) client.close();
});

describe("lnd's gRPC clients", () => {
  it.each(everyService)(
    '$service: the same methods as proto-loader gives, each by its lnd name and its camelCase name',
    ({ service, methods }) => {
      const ours = methods();
      const theirs = loaderMethods(service);
      expect(Object.keys(ours).sort()).toEqual(Object.keys(theirs).sort());
      for (const [name, method] of Object.entries(theirs)) {
        const { path, requestStream, responseStream, originalName } = ours[name]!;
        expect({ path, requestStream, responseStream, originalName }).toEqual({
          path: method.path,
          requestStream: method.requestStream,
          responseStream: method.responseStream,
          originalName: method.originalName,
        });
      }
    },
  );

  it.each(everyService)(
    '$service: empty requests encode and empty answers decode as proto-loader does (defaults, enums and longs as strings)',
    ({ service, methods }) => {
      const ours = methods();
      for (const [name, method] of Object.entries(loaderMethods(service))) {
        expect(Buffer.from(ours[name]!.requestSerialize({}))).toEqual(Buffer.from(method.requestSerialize({})));
        expect(ours[name]!.responseDeserialize(new Uint8Array())).toEqual(method.responseDeserialize(new Uint8Array()));
      }
    },
  );

  it('encodes and decodes messages with int64, bytes, enums, maps, repeated and nested fields as proto-loader does', () => {
    const lightning = clientOf(authenticated, 'default');
    const loader = loaderMethods('Lightning');
    const invoice = {
      value: '1000',
      value_msat: '1000000',
      memo: 'coffee',
      r_preimage: Buffer.alloc(32, 7),
      expiry: '3600',
      private: true,
      route_hints: [
        { hop_hints: [{ node_id: '02ab', chan_id: '123456789', fee_base_msat: 1, cltv_expiry_delta: 40 }] },
      ],
    };
    expect(Buffer.from(lightning.AddInvoice!.requestSerialize(invoice))).toEqual(
      Buffer.from(loader.AddInvoice!.requestSerialize(invoice)),
    );
    const payment = {
      payment_hash: 'ab',
      value_sat: '10',
      status: 'SUCCEEDED',
      htlcs: [
        {
          status: 'SUCCEEDED',
          route: {
            total_amt_msat: '10000',
            hops: [{ chan_id: '42', custom_records: { '5482373484': Buffer.alloc(32, 1) } }],
          },
        },
      ],
      failure_reason: 'FAILURE_REASON_NONE',
    };
    const answer = loader.ListPayments!.responseSerialize!({
      payments: [payment],
      first_index_offset: '1',
      last_index_offset: '1',
      total_num_payments: '1',
    });
    const decoded = lightning.ListPayments!.responseDeserialize(answer);
    expect(decoded).toEqual(loader.ListPayments!.responseDeserialize(answer));
    expect(decoded).toMatchObject({
      payments: [
        {
          value_sat: '10',
          status: 'SUCCEEDED',
          htlcs: [{ route: { total_amt_msat: '10000', hops: [{ chan_id: '42' }] } }],
        },
      ],
      total_num_payments: '1',
    });
  });
});
