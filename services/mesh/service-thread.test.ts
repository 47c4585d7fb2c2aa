// Server tests: the estimator on a thread of its own beside the registry (service-thread.ts, as `serve`
// runs it). Estimate is answered while the main thread's loop (the registry's port) is held, and the
// thread's call metrics join the process's /metrics. Real servers on 127.0.0.1; the Estimate during the
// hold comes from a separate process (this one could not send while its loop is held).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEstimatorClient } from "../estimator/client.js";
import { EstimateRequest, EstimateResponse } from "../generated/kepler/model/v1/estimator_service.js";
import { OutputType } from "../generated/kepler/model/v1/types.js";
import { silentLogger } from "../kit/observe/logger.js";
import { type MetricsServer, startMetricsServer } from "../kit/observe/metrics.js";
import { createRegistryClient } from "../registry/client.js";
import { bpfLinearSpec, buildTestArchive, publishTestArchive } from "../../test/support/model-archives.js";
import { PORT_ZERO_FLAGS } from "../../test/support/six-services.js";
import { startTimedChild } from "../../test/support/timed-child.js";
import { type MeshHandle, startMesh } from "./start-mesh.js";

// Intercept 10 W plus 80 W per scaled bpf_cpu_time_ms on each of four components.
const REQUEST = EstimateRequest.fromPartial({
  featureNames: ["bpf_cpu_time_ms", "bpf_page_cache_hit"],
  rowCount: 1,
  values: Buffer.from(new Float64Array([2000, 0]).buffer),
  outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
  energySource: "rapl-sysfs",
});

let dir: string;
let mesh: MeshHandle;
let metrics: MetricsServer;
const address = (name: string) => mesh.servers.find((server) => server.name === name)!.address;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "service-thread-"));
  mesh = await startMesh({
    services: ["registry", "estimator"],
    logger: silentLogger(),
    flags: { ...PORT_ZERO_FLAGS, "model-path": join(dir, "models") },
    estimatorThread: { log: { level: "silent", format: "json" }, tracesEndpoint: "" },
  });
  metrics = await startMetricsServer("127.0.0.1", 0);
  const registry = createRegistryClient(address("registry"));
  await publishTestArchive(registry, buildTestArchive(bpfLinearSpec("thread", [10, 10, 10, 10])));
  registry.close();
});

afterAll(async () => {
  await metrics?.close();
  await mesh?.close();
  await rm(dir, { recursive: true, force: true });
});

// A process of its own that makes one Estimate (connected and warmed first), when told to: the answer's
// bytes and the wall-clock time they arrived.
function estimateFromChild(target: string) {
  const script = `
    const grpc = require("@grpc/grpc-js");
    const client = new grpc.Client(${JSON.stringify(target)}, grpc.credentials.createInsecure());
    const request = Buffer.from(${JSON.stringify(Buffer.from(EstimateRequest.encode(REQUEST).finish()).toString("base64"))}, "base64");
    const call = (done) => client.makeUnaryRequest("/kepler.model.v1.EstimatorService/Estimate", (b) => b, (b) => b, request, done);
    call((error) => {
      if (error) throw error;
      process.stdout.write("ready\\n");
      process.stdin.once("data", () => call((error, reply) => {
        if (error) throw error;
        process.stdout.write(JSON.stringify({ reply: reply.toString("base64"), atMs: Date.now() }));
        process.exit(0);
      }));
    });`;
  return startTimedChild<{ reply: string; atMs: number }>(script);
}

describe("the estimator on a thread of its own", () => {
  it("answers Estimate while the main thread's loop is held", async () => {
    const estimator = createEstimatorClient(address("estimator"));
    // The model is loaded (the first Estimate reads it from the registry, on the main thread).
    const first = await estimator.client.estimate(REQUEST);
    estimator.close();
    expect(first.componentPowers.map((c) => c.powerWatts[0])).toEqual([50, 50, 50, 50]);

    const child = estimateFromChild(address("estimator"));
    await child.ready;
    child.go();
    const heldUntil = Date.now() + 3000;
    while (Date.now() < heldUntil);
    const { reply, atMs } = await child.result;
    expect(atMs).toBeLessThan(heldUntil);
    const response = EstimateResponse.decode(Buffer.from(reply, "base64"));
    expect(response.componentPowers.map((c) => c.powerWatts[0])).toEqual([50, 50, 50, 50]);
  });

  it("counts the thread's calls on the process's /metrics, beside the main thread's", async () => {
    const text = await (await fetch(`http://127.0.0.1:${metrics.port}/metrics`)).text();
    const estimates =
      /^kepler_model_rpc_requests_total\{service="estimator",method="\/kepler\.model\.v1\.EstimatorService\/Estimate",code="OK"\} (\d+)$/m.exec(
        text,
      );
    expect(Number(estimates?.[1])).toBeGreaterThanOrEqual(2);
    // The registry's PublishModel, counted on the main thread, and one TYPE line per metric.
    expect(text).toMatch(
      /^kepler_model_rpc_requests_total\{service="registry",method="\/kepler\.model\.v1\.RegistryService\/PublishModel",code="OK"\} 1$/m,
    );
    const types = text.split("\n").filter((line) => line.startsWith("# TYPE "));
    expect(new Set(types).size).toBe(types.length);
    expect(text).toMatch(/^process_start_time_seconds \d+/m);
  });
});
