// A wedged peer, over real gRPC: a TCP listener that accepts connections and never answers stands in
// for a peer whose connection stopped answering (issue 17: after one over-long status message, every
// call on that connection hung while health stayed green). The estimator and the pipeline run from
// the mesh launcher, pointed at it. Calls through it must fail within their deadline, and the
// pipeline's readiness must turn NOT_SERVING while its liveness stays SERVING.
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Status, createChannel, createClient } from "nice-grpc";
import { HealthDefinition } from "nice-grpc-server-health";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createEstimatorClient } from "../../services/estimator/client.js";
import { OutputType } from "../../services/generated/kepler/model/v1/types.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { type MeshHandle, startMesh } from "../../services/mesh/start-mesh.js";
import { createPipelineClient } from "../../services/pipeline/client.js";
import { timedClientError } from "../support/call-errors.js";

const DEADLINE_MS = 300;
const SERVING = 1;
const NOT_SERVING = 2;

let silent: Server;
const sockets: Socket[] = [];
let mesh: MeshHandle;

beforeAll(async () => {
  silent = createServer((socket) => {
    sockets.push(socket);
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  const port = (silent.address() as { port: number }).port;
  const wedged = `127.0.0.1:${port}`;
  mesh = await startMesh({
    services: ["estimator", "pipeline"],
    logger: silentLogger(),
    flags: {
      "estimator-port": "0",
      "pipeline-port": "0",
      "registry-address": wedged,
      "extractor-address": wedged,
      "isolator-address": wedged,
      "trainer-address": wedged,
      "estimate-registry-deadline-ms": String(DEADLINE_MS),
      "peer-deadline-ms": String(DEADLINE_MS),
      "peer-health-interval-ms": "200",
    },
  });
});
afterAll(async () => {
  await mesh?.close();
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => silent?.close(() => resolve()));
});

function addressOf(name: string): string {
  return mesh.servers.find((server) => server.name === name)!.address;
}

describe("a wedged peer", () => {
  it("fails an Estimate whose registry call does not answer, as UNAVAILABLE naming the deadline", async () => {
    const estimator = createEstimatorClient(addressOf("estimator"));
    try {
      const { error } = await timedClientError(() =>
        estimator.client.estimate({
          featureNames: ["bpf_cpu_time_ms"],
          rowCount: 1,
          values: Buffer.from(new Float64Array([1]).buffer),
          outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
          energySource: "rapl-sysfs",
        }),
      );
      expect(error.code).toBe(Status.UNAVAILABLE);
      expect(error.details).toBe(`registry: DEADLINE_EXCEEDED: no answer within ${DEADLINE_MS} ms`);
    } finally {
      estimator.close();
    }
  });

  it("fails a pipeline call that needs the registry with DEADLINE_EXCEEDED instead of hanging", async () => {
    const pipeline = createPipelineClient(addressOf("pipeline"));
    try {
      const { error } = await timedClientError(() => pipeline.client.getPipeline({ pipelineName: "std" }));
      expect([Status.DEADLINE_EXCEEDED, Status.UNAVAILABLE]).toContain(error.code);
      expect(error.details).toContain(`no answer within ${DEADLINE_MS} ms`);
    } finally {
      pipeline.close();
    }
  });

  it("turns the pipeline's readiness NOT_SERVING while its liveness stays SERVING", async () => {
    const channel = createChannel(addressOf("pipeline"));
    const health = createClient(HealthDefinition, channel);
    try {
      await vi.waitFor(
        async () => expect((await health.check({ service: "kepler.model.v1.PipelineService" })).status).toBe(NOT_SERVING),
        { timeout: 10_000, interval: 100 },
      );
      expect((await health.check({ service: "" })).status).toBe(SERVING);
    } finally {
      channel.close();
    }
  });
});

describe("a required peer that stops and comes back", () => {
  it("turns the trainer's readiness NOT_SERVING while the registry is down and SERVING again after", async () => {
    const dir = await mkdtemp(join(tmpdir(), "peer-health-"));
    const flags = { "registry-rescan-ms": "0", "model-path": dir, "peer-health-interval-ms": "200" };
    let registry = await startMesh({ services: ["registry"], logger: silentLogger(), flags: { ...flags, "registry-port": "0" } });
    const registryPort = String(registry.servers[0]!.port);
    const trainer = await startMesh({
      services: ["trainer"],
      logger: silentLogger(),
      flags: { ...flags, "trainer-port": "0", "registry-address": registry.servers[0]!.address },
    });
    const channel = createChannel(trainer.servers[0]!.address);
    const health = createClient(HealthDefinition, channel);
    const readiness = async () => (await health.check({ service: "kepler.model.v1.TrainerService" })).status;
    try {
      expect(await readiness()).toBe(SERVING);
      await registry.close();
      await vi.waitFor(async () => expect(await readiness()).toBe(NOT_SERVING), { timeout: 10_000, interval: 100 });
      expect((await health.check({ service: "" })).status).toBe(SERVING);
      registry = await startMesh({
        services: ["registry"],
        logger: silentLogger(),
        flags: { ...flags, "registry-port": registryPort },
      });
      await vi.waitFor(async () => expect(await readiness()).toBe(SERVING), { timeout: 15_000, interval: 100 });
    } finally {
      channel.close();
      await trainer.close();
      await registry.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
