// Bearer tokens against a real mesh in one process (port 0): every write RPC, taken from the generated
// service definitions, is refused without a token (UNAUTHENTICATED) and with a read-only token
// (PERMISSION_DENIED); reads, health and reflection stay open; the default training still runs through
// RunPipeline, PutPipelineMetadata, IndexMachine and PublishModel because peers send the first write token.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { GrpcReflection } from "grpc-js-reflection-client";
import { ClientError, Metadata, Status, createChannel, createClient } from "nice-grpc";
import { HealthDefinition } from "nice-grpc-server-health";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEstimatorClient } from "../../services/estimator/client.js";
import { EstimateRequest } from "../../services/generated/kepler/model/v1/estimator_service.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { clientConnection } from "../../services/kit/security/peer-connection.js";
import { rpcAccess } from "../../services/kit/security/rpc-access.js";
import { INSECURE } from "../../services/kit/security/security-config.js";
import { SERVICE_NAMES } from "../../services/kit/config/service-addresses.js";
import { EXAMPLE_ESTIMATE_REQUEST } from "../../services/mesh/estimate-example.js";
import { type DefaultMeshHandle, startMeshWithDefaultModels } from "../../services/mesh/start-mesh-with-default-models.js";
import { type MeshHandle, startMesh } from "../../services/mesh/start-mesh.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { runCliCaptured } from "../support/run-cli.js";
import { type RpcMethod, hostedRpcs } from "./rpc-definitions.js";

const PORTS = Object.fromEntries(SERVICE_NAMES.map((name) => [`${name}-port`, "0"]));
const WRITE_TOKEN = randomBytes(24).toString("hex");
const READ_TOKEN = randomBytes(24).toString("hex");
const writeRpcs = (await hostedRpcs()).filter((rpc) => rpcAccess(rpc.path) === "write");

let folder: string;
let tokensFile: string;
let mesh: DefaultMeshHandle;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "auth-e2e-"));
  tokensFile = join(folder, "tokens");
  await writeFile(tokensFile, `# name:token[:role]\nci:${WRITE_TOKEN}\ndashboard:${READ_TOKEN}:read\n`);
  mesh = await startMeshWithDefaultModels({
    logger: silentLogger(),
    flags: { ...PORTS, "model-path": join(folder, "models"), "registry-rescan-ms": "0", "auth-tokens-file": tokensFile },
    defaultModels: true,
  });
});
afterAll(async () => {
  await mesh?.close();
  await rm(folder, { recursive: true, force: true });
});

function addressOf(handle: MeshHandle, rpc: RpcMethod): string {
  const name = rpc.service.replace("kepler.model.v1.", "").replace("Service", "").toLowerCase();
  return handle.servers.find((server) => server.name === name)!.address;
}

/** Calls any RPC with an empty request (an empty stream for client streams); returns the status code. */
async function statusOf(address: string, rpc: RpcMethod, token?: string): Promise<Status> {
  const channel = createChannel(address);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a generic caller over every definition.
  const client = createClient(rpc.definition, channel) as any;
  const metadata = token === undefined ? Metadata() : Metadata({ authorization: `Bearer ${token}` });
  const options = { metadata, signal: AbortSignal.timeout(5000) };
  const request = rpc.requestStream ? (async function* () {})() : {};
  try {
    const call = client[rpc.key](request, options);
    if (rpc.responseStream) for await (const _ of call as AsyncIterable<unknown>);
    else await call;
    return Status.OK;
  } catch (error) {
    if (error instanceof ClientError) return error.code;
    throw error;
  } finally {
    channel.close();
  }
}

describe("bearer tokens on a running mesh", () => {
  it("ran the default training through the write RPCs with the peers' token", () => {
    expect(mesh.defaultModels?.status).toBe("trained");
  });

  it("covers the write RPCs the issue names", () => {
    expect(writeRpcs.map((rpc) => rpc.path.split("/")[2])).toEqual(
      expect.arrayContaining([
        "PublishModel",
        "ImportPipeline",
        "RunPipeline",
        "StartOnlinePipeline",
        "Train",
        "PutPipelineMetadata",
        "IndexMachine",
      ]),
    );
  });

  describe.each(writeRpcs.map((rpc) => [rpc.path, rpc] as const))("%s", (_path, rpc) => {
    it("is UNAUTHENTICATED without a token or with an unknown one", async () => {
      expect(Status[await statusOf(addressOf(mesh, rpc), rpc)]).toBe("UNAUTHENTICATED");
      expect(Status[await statusOf(addressOf(mesh, rpc), rpc, "x".repeat(48))]).toBe("UNAUTHENTICATED");
    });
    it("is PERMISSION_DENIED with a read-only token", async () => {
      expect(Status[await statusOf(addressOf(mesh, rpc), rpc, READ_TOKEN)]).toBe("PERMISSION_DENIED");
    });
  });

  it("explains what is missing", async () => {
    const registry = createRegistryClient(
      addressOf(
        mesh,
        writeRpcs.find((rpc) => rpc.key === "indexMachine")!,
      ),
    );
    const error = await registry.client.indexMachine({}).catch((caught: unknown) => caught as ClientError);
    registry.close();
    expect(error).toBeInstanceOf(ClientError);
    expect((error as ClientError).details).toBe(
      '/kepler.model.v1.RegistryService/IndexMachine changes state and needs a bearer token: send metadata "authorization: Bearer <token>" (CLI: --token-file or KEPLER_MODEL_TOKEN)',
    );
  });

  it("passes a write token through to the RPC", async () => {
    const stop = writeRpcs.find((rpc) => rpc.key === "stopOnlinePipeline")!;
    expect(Status[await statusOf(addressOf(mesh, stop), stop, WRITE_TOKEN)]).toBe("NOT_FOUND");
  });

  it("leaves reads, health and reflection open", async () => {
    const estimatorAddress = mesh.servers.find((server) => server.name === "estimator")!.address;
    const estimator = createEstimatorClient(estimatorAddress);
    const response = await estimator.client.estimate(EstimateRequest.fromJSON(EXAMPLE_ESTIMATE_REQUEST));
    estimator.close();
    expect(response.componentPowers.length).toBeGreaterThan(0);
    const channel = createChannel(estimatorAddress);
    expect((await createClient(HealthDefinition, channel).check({ service: "" })).status).toBe(1);
    channel.close();
    const reflection = new GrpcReflection(estimatorAddress, grpc.credentials.createInsecure(), {}, "v1");
    expect(await reflection.listServices()).toContain("kepler.model.v1.EstimatorService");
  });

  it("the CLI sends the token from --token-file", async () => {
    const pipelineAddress = mesh.servers.find((server) => server.name === "pipeline")!.address;
    const tokenFile = join(folder, "cli-token");
    await writeFile(tokenFile, `${WRITE_TOKEN}\n`);
    const stop = ["pipeline", "stop", "--pipeline", "nope", "--pipeline-address", pipelineAddress];
    const refused = await runCliCaptured(stop);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("needs a bearer token");
    const sent = await runCliCaptured([...stop, "--token-file", tokenFile]);
    expect(sent.stderr).not.toContain("bearer token");
    expect(sent.stderr).toContain("nope");
  });
});

describe("--auth-reads and token rotation", () => {
  it("closes reads (health stays open) and follows a rewritten tokens file", async () => {
    const file = join(folder, "tokens-reads");
    await writeFile(file, JSON.stringify({ reader: { token: READ_TOKEN, role: "read" } }));
    const registryMesh = await startMesh({
      services: ["registry"],
      logger: silentLogger(),
      flags: { "registry-port": "0", "model-path": join(folder, "models"), "auth-tokens-file": file, "auth-reads": "true" },
    });
    try {
      const address = registryMesh.servers[0]!.address;
      const list = (await hostedRpcs()).find((rpc) => rpc.path === "/kepler.model.v1.RegistryService/ListModels")!;
      expect(Status[await statusOf(address, list)]).toBe("UNAUTHENTICATED");
      expect(Status[await statusOf(address, list, READ_TOKEN)]).toBe("OK");
      const channel = createChannel(address);
      expect((await createClient(HealthDefinition, channel).check({ service: "" })).status).toBe(1);
      channel.close();

      const rotated = randomBytes(24).toString("hex");
      await writeFile(file, JSON.stringify({ reader: { token: rotated, role: "read" } }));
      await new Promise((resolve) => setTimeout(resolve, 1100)); // the file is checked at most once a second
      expect(Status[await statusOf(address, list, READ_TOKEN)]).toBe("UNAUTHENTICATED");
      const registry = createRegistryClient(address, clientConnection({ ...INSECURE, token: rotated }));
      expect((await registry.client.listModels({})).models.length).toBeGreaterThan(0);
      registry.close();
    } finally {
      await registryMesh.close();
    }
  });
});
