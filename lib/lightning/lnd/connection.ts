import { isIP } from 'node:net';
import { isAbsolute, join } from 'node:path';
import type { AuthenticatedLnd, UnauthenticatedLnd } from 'ln-service';
import { LND_CLIENT_FILES } from './files.js';
import { lightningDir, lightningRequire as lightning } from './package.js';

// ln-service's authenticatedLndGrpc parses every lnd proto file (12 services, lightning.proto again
// for each file that imports it) for every connection, tens of MiB each, though a client calls two or
// three of the services. The same clients are made here from the same files and options (those of
// ln-service's `lightning` package), each service's on first use, and each file parsed once per
// process for all the connections that use it (bench:memory; the clients' equality with
// proto-loader's: test/lightning/lnd-clients.unit.test.ts).
interface ProtoType {
  fromObject(object: object): unknown;
  encode(message: unknown): { finish(): Uint8Array };
  decode(buffer: Uint8Array): unknown;
  toObject(message: unknown, options: object): object;
}

interface ProtoRoot {
  files: string[];
  resolvePath(origin: string, target: string): string;
  loadSync(file: string, options: object): ProtoRoot;
  lookupService(name: string): {
    resolveAll(): unknown;
    methodsArray: {
      name: string;
      requestStream?: boolean;
      responseStream?: boolean;
      resolvedRequestType: ProtoType;
      resolvedResponseType: ProtoType;
    }[];
  };
}

interface GrpcLibrary {
  grpc: {
    makeClientConstructor(
      methods: object,
      serviceName: string,
    ): new (
      socket: string,
      credentials: unknown,
      options?: object,
    ) => unknown;
  };
  protobuf: { Root: new () => ProtoRoot };
  camelCase(name: string): string;
  grpcOptions: object;
  grpcCredentials(args: { cert?: string; macaroon: string }): { credentials: unknown };
  grpcSsl(args: { cert?: string }): { ssl: unknown };
  services: {
    grpcSslCipherSuites: string;
    packageTypes: Record<string, string>;
    protoFiles: Record<string, string>;
    protosDir: string;
    serviceTypes: Record<string, string>;
    unauthenticatedServiceTypes: Record<string, string>;
  };
  protosDir: string;
}

let library: GrpcLibrary | undefined;

/** grpc-js, protobufjs and ln-service's gRPC settings, loaded with the first client, not on every start's path. */
function grpcLibrary(): GrpcLibrary {
  if (!library) {
    const files = LND_CLIENT_FILES;
    const services = lightning(files.services) as GrpcLibrary['services'];
    library = {
      grpc: lightning(files.grpc) as GrpcLibrary['grpc'],
      protobuf: lightning(files.protobuf) as GrpcLibrary['protobuf'],
      camelCase: lightning(files.camelCase) as GrpcLibrary['camelCase'],
      grpcOptions: lightning(files.grpcOptions) as object,
      grpcCredentials: lightning(files.grpcCredentials) as GrpcLibrary['grpcCredentials'],
      grpcSsl: lightning(files.grpcSsl) as GrpcLibrary['grpcSsl'],
      services,
      protosDir: join(lightningDir, 'lnd_grpc', services.protosDir),
    };
  }
  return library;
}

/**
 * lnd's proto files, parsed into one protobufjs root per process: each file once, and lightning.proto
 * once for every file that imports it. proto-loader, ln-service's loader, parses each file with its
 * imports into a root of its own, then describes every message of it for gRPC reflection, which a
 * client never asks. A process's first calls to the three services a lab service uses (Lightning,
 * Router, Invoices) cost about twice the CPU that way, on the path of every bring-up (bench:snapshot).
 */
let root: ProtoRoot | undefined;

function protoRoot(): ProtoRoot {
  if (!root) {
    const { protobuf, protosDir } = grpcLibrary();
    root = new protobuf.Root();
    root.resolvePath = (_origin, target) => (isAbsolute(target) ? target : join(protosDir, target));
  }
  return root;
}

type ClientClass = ReturnType<GrpcLibrary['grpc']['makeClientConstructor']>;

/** Each lnd service's client class, its methods as proto-loader's package definitions give them to grpc-js. */
const clientClasses = new Map<string, ClientClass>();

function clientClass(service: string): ClientClass {
  let made = clientClasses.get(service);
  if (made) return made;
  const { grpc, camelCase, grpcOptions, services, protosDir } = grpcLibrary();
  const file = join(protosDir, services.protoFiles[service]!);
  const protos = protoRoot();
  if (!protos.files.includes(file)) protos.loadSync(file, grpcOptions);
  const name = `${services.packageTypes[service]}.${service}`;
  const definition = protos.lookupService(name);
  definition.resolveAll();
  const methods = Object.fromEntries(
    definition.methodsArray.map(
      ({
        name: method,
        requestStream,
        responseStream,
        resolvedRequestType: request,
        resolvedResponseType: response,
      }) => [
        method,
        {
          path: `/${name}/${method}`,
          requestStream: !!requestStream,
          responseStream: !!responseStream,
          requestSerialize: (message: object) => request.encode(request.fromObject(message)).finish(),
          responseDeserialize: (buffer: Uint8Array) => response.toObject(response.decode(buffer), grpcOptions),
          originalName: camelCase(method),
        },
      ],
    ),
  );
  clientClasses.set(service, (made = grpc.makeClientConstructor(methods, name)));
  return made;
}

function serviceClient(service: string, socket: string, credentials: unknown, options?: object): unknown {
  return new (clientClass(service))(socket, credentials, options);
}

/** An object with ln-service's service names (default, router, ...), each client made when first read. */
function lazyServices(types: Record<string, string>, make: (service: string) => unknown): object {
  const lnd = {};
  for (const [type, service] of Object.entries(types)) {
    let client: unknown;
    Object.defineProperty(lnd, type, { enumerable: true, get: () => (client ??= make(service)) });
  }
  return lnd;
}

/** ln-service sets this for lnd's TLS (ECDSA certificates) before it makes a client. */
function useLndCipherSuites(): void {
  const { grpcSslCipherSuites } = grpcLibrary().services;
  if (process.env.GRPC_SSL_CIPHER_SUITES !== grpcSslCipherSuites)
    process.env.GRPC_SSL_CIPHER_SUITES = grpcSslCipherSuites;
}

/**
 * grpc-js waits 1 s after a failed connection attempt, then 1.6 times longer after each next one, up
 * to 2 minutes: a client whose lnd was down a minute could go on failing (502 in the wallet server)
 * for a minute after lnd is back. A lab's lnd is on this machine or its container network, where an
 * attempt costs a refused connection: try at least every second.
 */
const RECONNECT_BACKOFF = { 'grpc.initial_reconnect_backoff_ms': 250, 'grpc.max_reconnect_backoff_ms': 1_000 };

/**
 * The channel options for lnd at `socket` (host:port). TLS names no IP address (RFC 6066: Node warns
 * "Setting the TLS ServerName to an IP address is not permitted" in every process that connects to
 * 127.0.0.1): for an address, the name checked is localhost, which every lnd certificate holds.
 */
function channelOptions(socket: string): Record<string, string | number> {
  const host = socket.replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1');
  return { ...RECONNECT_BACKOFF, ...(isIP(host) ? { 'grpc.ssl_target_name_override': 'localhost' } : {}) };
}

/** What a client needs to reach one lnd node: where, its TLS certificate and a macaroon. */
export interface LndCredentials {
  /** host:port of lnd's gRPC. */
  socket: string;
  /** tls.cert, base64 of the file's bytes. */
  certBase64: string;
  /** admin.macaroon, as hex. */
  macaroonHex: string;
}

/** What ln-service's authenticatedLndGrpc returns, its services made on first use. */
export function connectLnd(credentials: LndCredentials): AuthenticatedLnd {
  const { grpcCredentials, services } = grpcLibrary();
  const { credentials: channelCredentials } = grpcCredentials({
    cert: credentials.certBase64,
    macaroon: credentials.macaroonHex,
  });
  useLndCipherSuites();
  const options = {
    'grpc.max_receive_message_length': -1,
    'grpc.max_send_message_length': -1,
    ...channelOptions(credentials.socket),
  };
  return lazyServices(services.serviceTypes, (service) =>
    serviceClient(service, credentials.socket, channelCredentials, options),
  ) as AuthenticatedLnd;
}

/** What ln-service's unauthenticatedLndGrpc returns (lnd's State and WalletUnlocker), made on first use. */
export function connectLndUnauthenticated(socket: string, certBase64: string): UnauthenticatedLnd {
  const { grpcSsl, services } = grpcLibrary();
  const { ssl } = grpcSsl({ cert: certBase64 });
  useLndCipherSuites();
  return lazyServices(services.unauthenticatedServiceTypes, (service) =>
    serviceClient(service, socket, ssl, channelOptions(socket)),
  ) as UnauthenticatedLnd;
}

/**
 * The lnd connection of a lab service from its environment: LND_GRPC_HOST plus the certificate and
 * macaroon either inline (LND_CERT_BASE64, LND_MACAROON_HEX, as containers get them) or as files
 * (LND_CERT_PATH, LND_MACAROON_PATH).
 */
export async function lndCredentialsFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<LndCredentials> {
  const { readFile } = await import('node:fs/promises');
  const socket = env.LND_GRPC_HOST;
  if (!socket) throw new Error('LND_GRPC_HOST is required (host:port of the lnd node gRPC)');
  const certBase64 =
    env.LND_CERT_BASE64 ?? (env.LND_CERT_PATH ? (await readFile(env.LND_CERT_PATH)).toString('base64') : undefined);
  const macaroonHex =
    env.LND_MACAROON_HEX ??
    (env.LND_MACAROON_PATH ? (await readFile(env.LND_MACAROON_PATH)).toString('hex') : undefined);
  if (!certBase64) throw new Error('LND_CERT_BASE64 or LND_CERT_PATH is required (lnd tls.cert)');
  if (!macaroonHex) throw new Error('LND_MACAROON_HEX or LND_MACAROON_PATH is required (lnd admin.macaroon)');
  return { socket, certBase64, macaroonHex };
}

export function lndCredentialsToEnv(credentials: LndCredentials): Record<string, string> {
  return {
    LND_GRPC_HOST: credentials.socket,
    LND_CERT_BASE64: credentials.certBase64,
    LND_MACAROON_HEX: credentials.macaroonHex,
  };
}
