// The files of ln-service's `lightning` package the project loads one by one (lib/lightning/lnd/files.ts):
// each method is ln-service's own, and the gRPC helpers are those ln-service's loader uses.
import { createRequire } from 'node:module';
import * as lnService from 'ln-service';
import { describe, expect, it } from 'vitest';
import { LND_CLIENT_FILES, LND_METHOD_FOLDERS, lndMethodFile } from '../../lib/lightning/lnd/files.js';
import { lightningRequire } from '../../lib/lightning/lnd/package.js';

const methodNames = Object.keys(LND_METHOD_FOLDERS) as (keyof typeof LND_METHOD_FOLDERS)[];

describe("the lightning package's files", () => {
  it.each(methodNames)("%s is loaded from the file that holds ln-service's own function", (name) => {
    expect(lightningRequire(lndMethodFile(name))).toBe(lnService[name]);
  });

  it.each(['protobuf', 'camelCase'] as const)("%s is the copy ln-service's loader (proto-loader) uses", (key) => {
    const fromLoader = createRequire(
      createRequire(createRequire(import.meta.url).resolve('ln-service')).resolve('lightning'),
    );
    const protoLoader = createRequire(fromLoader.resolve('@grpc/proto-loader'));
    expect(lightningRequire(LND_CLIENT_FILES[key])).toBe(protoLoader(LND_CLIENT_FILES[key]));
  });
});
