import * as grpc from "@grpc/grpc-js";
import { ClientError, Status, createChannel, createClient } from "nice-grpc";
import { HealthDefinition } from "nice-grpc-server-health";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidInputError, NotFoundError } from "../../domain/errors.js";
import { EstimatorServiceDefinition } from "../../generated/kepler/model/v1/estimator_service.js";
import { RegistryServiceDefinition } from "../../generated/kepler/model/v1/registry_service.js";
import { type ServerHandle, startGrpcServer } from "./grpc-server.js";
import { silentLogger } from "../observe/logger.js";
import { withUnimplemented } from "../calls/unimplemented.js";

// The kit hosting a small Estimate implementation whose behaviour depends on the energy source,
// so each failure path of the kit can be reached over real gRPC.
let server: ServerHandle;
beforeAll(async () => {
  server = await startGrpcServer({
    serviceName: "kit-test",
    host: "127.0.0.1",
    port: 0,
    logger: silentLogger(),
    limits: { maxReceiveBytes: 1024 * 1024, maxSendBytes: 1024 * 1024 },
    shutdownGraceMs: 1000,
    services: [
      {
        definition: EstimatorServiceDefinition,
        implementation: withUnimplemented(EstimatorServiceDefinition, {
          async estimate(request: { energySource: string }) {
            if (request.energySource === "bad") throw new InvalidInputError("energy_source", 'unknown energy source "bad"');
            if (request.energySource === "missing") throw new NotFoundError("model for acpi/AbsPower");
            if (request.energySource === "bug") throw new TypeError("cannot read properties of undefined");
            if (request.energySource === "verbose") throw new InvalidInputError("energy_source", "v".repeat(100_000));
            return { modelName: `ok:${request.energySource}`, componentPowers: [], rowCount: 0 };
          },
        }),
      },
      { definition: RegistryServiceDefinition, implementation: withUnimplemented(RegistryServiceDefinition) },
    ],
  });
});
afterAll(async () => {
  await server.close();
});

function estimatorClient() {
  const channel = createChannel(server.address, undefined, { "grpc.max_send_message_length": 64 * 1024 * 1024 });
  return { client: createClient(EstimatorServiceDefinition, channel), channel };
}

async function callError(call: Promise<unknown>): Promise<ClientError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ClientError) return error;
    throw error;
  }
  throw new Error("expected the call to fail");
}

async function stillServing(): Promise<void> {
  const channel = createChannel(server.address);
  expect((await createClient(HealthDefinition, channel).check({ service: "" })).status).toBe(1);
  const { client, channel: estimatorChannel } = estimatorClient();
  expect((await client.estimate({ energySource: "acpi" })).modelName).toBe("ok:acpi");
  channel.close();
  estimatorChannel.close();
}

describe("server kit over real gRPC", () => {
  it("maps InvalidInputError to INVALID_ARGUMENT naming the field", async () => {
    const { client, channel } = estimatorClient();
    const error = await callError(client.estimate({ energySource: "bad" }));
    expect(error.code).toBe(Status.INVALID_ARGUMENT);
    expect(error.details).toBe('energy_source: unknown energy source "bad"');
    channel.close();
  });

  it("maps NotFoundError to NOT_FOUND", async () => {
    const { client, channel } = estimatorClient();
    const error = await callError(client.estimate({ energySource: "missing" }));
    expect(error.code).toBe(Status.NOT_FOUND);
    expect(error.details).toBe("model for acpi/AbsPower not found");
    channel.close();
  });

  it("hides unexpected errors behind INTERNAL with a fixed message", async () => {
    const { client, channel } = estimatorClient();
    const error = await callError(client.estimate({ energySource: "bug" }));
    expect(error.code).toBe(Status.INTERNAL);
    expect(error.details).toBe("internal error; the server log has the details");
    channel.close();
  });

  it("cuts a status message over 4096 characters, so it is delivered and the connection keeps answering", async () => {
    // grpc-js never delivers a status message of ~64 KiB or more and the connection stops answering.
    const { client, channel } = estimatorClient();
    for (let attempt = 0; attempt < 2; attempt++) {
      const error = await callError(client.estimate({ energySource: "verbose" }));
      expect(error.code).toBe(Status.INVALID_ARGUMENT);
      const note = " ... [cut: 100015 characters]";
      expect(error.details).toBe(`energy_source: ${"v".repeat(100_000)}`.slice(0, 4096 - note.length) + note);
      expect(error.details).toHaveLength(4096);
    }
    expect((await client.estimate({ energySource: "acpi" })).modelName).toBe("ok:acpi");
    channel.close();
    await stillServing();
  });

  it("answers RPCs that are not built yet with UNIMPLEMENTED saying so", async () => {
    const channel = createChannel(server.address);
    const registry = createClient(RegistryServiceDefinition, channel);
    const error = await callError(registry.selectModel({ featureNames: ["bpf_cpu_time_ms"] }));
    expect(error.code).toBe(Status.UNIMPLEMENTED);
    expect(error.details).toBe("kepler.model.v1.RegistryService/SelectModel is not implemented yet in this version");
    const streamError = await callError(
      (async () => {
        for await (const _ of registry.watchModels({})) {
          // no event is expected
        }
      })(),
    );
    expect(streamError.code).toBe(Status.UNIMPLEMENTED);
    channel.close();
  });

  it("rejects an oversized message with RESOURCE_EXHAUSTED and keeps serving", async () => {
    const { client, channel } = estimatorClient();
    const twoMiB = Buffer.alloc(2 * 1024 * 1024);
    const error = await callError(client.estimate({ energySource: "acpi", values: twoMiB }));
    expect(error.code).toBe(Status.RESOURCE_EXHAUSTED);
    expect(error.details).toMatch(/^Received message larger than max \(\d+ vs 1048576\)$/);
    channel.close();
    await stillServing();
  });

  it("rejects bytes that are not a valid request with INVALID_ARGUMENT and keeps serving", async () => {
    const client = new grpc.Client(server.address, grpc.credentials.createInsecure());
    // Field 1 (feature_names, length-delimited) claiming 100 bytes that never come.
    const malformed = Buffer.from([0x0a, 0x64, 0x01]);
    const error = await new Promise<grpc.ServiceError>((resolve) => {
      client.makeUnaryRequest(
        "/kepler.model.v1.EstimatorService/Estimate",
        (bytes: Buffer) => bytes,
        (bytes: Buffer) => bytes,
        malformed,
        (err) => resolve(err!),
      );
    });
    expect(error.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(error.details).toMatch(/^request: not a valid kepler\.model\.v1\.EstimateRequest message \(.+\)$/);
    client.close();
    await stillServing();
  });
});
