// Server test of the estimator's readiness (issue 12 item 5): grpc.health.v1 says NOT_SERVING while no
// registry is reachable and no model is cached, and SERVING once the registry answers, for
// kepler.model.v1.EstimatorService (readiness); "" (liveness) stays SERVING, so a registry outage does not
// get the estimator restarted. The registry is a real one started and stopped on a fixed port.
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { Writable } from "node:stream";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createChannel, createClient } from "nice-grpc";
import { HealthDefinition } from "nice-grpc-server-health";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../kit/observe/logger.js";
import { OutputType } from "../generated/kepler/model/v1/types.js";
import { createRegistryClient } from "../registry/client.js";
import { readRegistryConfig } from "../registry/config.js";
import { startRegistry } from "../registry/main.js";
import { createEstimatorClient } from "./client.js";
import { readEstimatorConfig } from "./config.js";
import { startEstimator } from "./main.js";
import { importPipelineZip } from "../../test/support/import-pipeline-zip.js";
import { zipFolderTree } from "../models/index.js";

const FIXTURE = new URL("../../test/fixtures/registry/ec2-fixture", import.meta.url).pathname;
const SERVICES = ["kepler.model.v1.EstimatorService"];
// grpc.health.v1 HealthCheckResponse.ServingStatus (the package does not export the enum).
const SERVING = 1;
const NOT_SERVING = 2;
// The watch retries with a backoff of at most 5 s; a generous bound for it to see the registry.
const RECOVERY_BOUND_MS = 20_000;

let dir: string;
let registryPort: number;
let estimatorHandle: Awaited<ReturnType<typeof startEstimator>>;
let channel: ReturnType<typeof createChannel>;

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

function startRegistryOnPort() {
  return startRegistry(
    { ...readRegistryConfig({}), host: "127.0.0.1", port: registryPort, modelPath: join(dir, "models"), rescanIntervalMs: 0 },
    { logger: silentLogger() },
  );
}

async function statuses(): Promise<number[]> {
  const health = createClient(HealthDefinition, channel);
  return Promise.all(SERVICES.map(async (service) => (await health.check({ service })).status));
}

async function waitForStatus(wanted: number): Promise<number[]> {
  const until = Date.now() + RECOVERY_BOUND_MS;
  let seen = await statuses();
  while (seen.some((status) => status !== wanted) && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    seen = await statuses();
  }
  return seen;
}

// The estimator's log, to know when its registry watch has noticed a change.
const logLines: string[] = [];
const logger = pino(
  { level: "info" },
  new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString());
      done();
    },
  }),
);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "estimator-readiness-"));
  registryPort = await freePort();
  estimatorHandle = await startEstimator(
    { ...readEstimatorConfig({}), host: "127.0.0.1", port: 0, registryAddress: `127.0.0.1:${registryPort}` },
    { logger },
  );
  channel = createChannel(estimatorHandle.address);
});

afterAll(async () => {
  channel.close();
  await estimatorHandle.close();
  await rm(dir, { recursive: true, force: true });
});

describe("estimator readiness", () => {
  it("is NOT_SERVING while the registry is down and no model is cached, SERVING once the registry is up, and back", async () => {
    expect(await statuses()).toEqual([NOT_SERVING]);
    expect((await createClient(HealthDefinition, channel).check({ service: "" })).status, "liveness").toBe(SERVING);

    const registry = await startRegistryOnPort();
    try {
      expect(await waitForStatus(SERVING)).toEqual([SERVING]);
    } finally {
      await registry.close();
    }
    // The registry went away and the estimator holds no model: nothing could be estimated.
    expect(await waitForStatus(NOT_SERVING)).toEqual([NOT_SERVING]);

    const again = await startRegistryOnPort();
    try {
      expect(await waitForStatus(SERVING)).toEqual([SERVING]);
    } finally {
      await again.close();
    }
    expect(await waitForStatus(NOT_SERVING)).toEqual([NOT_SERVING]);
  });

  it("stays SERVING without a registry while it holds a model", async () => {
    let lostBefore: number | undefined;
    const registryLost = () => logLines.filter((line) => line.includes('"reachable":false')).length;
    const registry = await startRegistryOnPort();
    const registryClient = createRegistryClient(registry.address);
    const estimator = createEstimatorClient(estimatorHandle.address);
    try {
      await importPipelineZip(registryClient, "ec2-fixture", await zipFolderTree(FIXTURE));
      expect(await waitForStatus(SERVING)).toEqual([SERVING]);
      const estimate = await estimator.client.estimate({
        featureNames: ["bpf_cpu_time_ms", "bpf_page_cache_hit"],
        rowCount: 1,
        valueList: [0, 0],
        outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
        energySource: "acpi",
      });
      expect(estimate.componentPowers[0]?.component).toBe("platform");
    } finally {
      lostBefore = registryLost();
      registryClient.close();
      estimator.close();
      await registry.close();
    }
    // Wait until the estimator's watch has seen the registry go (its log says so), then check.
    const until = Date.now() + RECOVERY_BOUND_MS;
    while (registryLost() === lostBefore && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(registryLost()).toBe(lostBefore + 1);
    expect(await statuses()).toEqual([SERVING]);
  });
});
