// Safe default for exposure (issue 33): a server bound beyond loopback with no tokens refuses writes
// unless --insecure-allow-unauthenticated-writes is set; reads stay open and the process's own services
// (in-process peer calls) may still write. The real registry on 0.0.0.0, called over the network.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClientError, Status, createChannel, createClient } from "nice-grpc";
import { afterEach, describe, expect, it } from "vitest";
import { RegistryServiceDefinition } from "../../generated/kepler/model/v1/registry_service.js";
import { createRegistryClient } from "../../registry/client.js";
import { startRegistry } from "../../registry/main.js";
import { silentLogger } from "../observe/logger.js";
import { isLoopbackHost } from "./auth-policy.js";

let cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function registryOn(host: string, insecureAllowUnauthenticatedWrites: boolean) {
  const folder = await mkdtemp(join(tmpdir(), "kepler-unauth-writes-"));
  const handle = await startRegistry(
    { host, port: 0, modelPath: folder, rescanIntervalMs: 0, sourcePipelines: [], insecureAllowUnauthenticatedWrites },
    { logger: silentLogger() },
  );
  cleanups.push(() => rm(folder, { recursive: true, force: true }));
  cleanups.push(() => handle.close());
  // A plain client over the network (never in-process), as another machine would call.
  const channel = createChannel(`127.0.0.1:${handle.port}`);
  cleanups.push(() => channel.close());
  return { handle, network: createClient(RegistryServiceDefinition, channel) };
}

const PUT = { pipelineName: "p", metadataJson: '{"name":"p"}', files: [] };

async function failure(call: Promise<unknown>): Promise<ClientError> {
  const error = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof ClientError)) throw new Error(`expected a ClientError, got ${String(error)}`);
  return error;
}

describe("writes on a server bound beyond loopback without tokens", () => {
  it("are refused with PERMISSION_DENIED naming the flag; reads answer", async () => {
    const { network } = await registryOn("0.0.0.0", false);
    const error = await failure(network.putPipelineMetadata(PUT));
    expect(error.code).toBe(Status.PERMISSION_DENIED);
    expect(error.details).toBe(
      "/kepler.model.v1.RegistryService/PutPipelineMetadata changes state; this server listens on 0.0.0.0 with no " +
        "--auth-tokens-file, so it refuses writes: give it tokens (KEPLER_MODEL_AUTH_TOKENS_FILE, docs/security.md) " +
        "or set --insecure-allow-unauthenticated-writes",
    );
    expect((await network.listPipelineMetadata({ pipelineNames: [] })).pipelines).toEqual([]);
  });

  it("from this process's own services (in-process peer calls) are taken", async () => {
    const { handle, network } = await registryOn("0.0.0.0", false);
    const peer = createRegistryClient(`127.0.0.1:${handle.port}`);
    cleanups.push(() => peer.close());
    await peer.client.putPipelineMetadata(PUT);
    expect((await network.listPipelineMetadata({ pipelineNames: [] })).pipelines.map((p) => p.pipelineName)).toEqual(["p"]);
  });

  it("are taken with --insecure-allow-unauthenticated-writes", async () => {
    const { network } = await registryOn("0.0.0.0", true);
    await network.putPipelineMetadata(PUT);
    expect((await network.listPipelineMetadata({ pipelineNames: [] })).pipelines.map((p) => p.pipelineName)).toEqual(["p"]);
  });

  it("are taken on loopback without the flag (the local default)", async () => {
    const { network } = await registryOn("127.0.0.1", false);
    await network.putPipelineMetadata(PUT);
    expect((await network.listPipelineMetadata({ pipelineNames: [] })).pipelines).toHaveLength(1);
  });

  it("loopback means 127.0.0.0/8, ::1 and localhost; wildcards and other addresses are not", () => {
    for (const host of ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost"]) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ["0.0.0.0", "::", "10.0.0.5", "192.168.1.1", "kepler.example"])
      expect(isLoopbackHost(host), host).toBe(false);
  });
});
