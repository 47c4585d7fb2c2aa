// A real S3 server (Ceph radosgw from Debian, test/support/radosgw.ts) with one bucket, for the shared
// model store's tests: registries over it (replicas) or over a folder, pipeline folders as `models export`
// writes them, and polling helpers. useS3Store() starts it before the file's tests and stops it after.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import type { ServerHandle } from "../../services/kit/transport/grpc-server.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { metricsRegistry } from "../../services/kit/observe/metrics.js";
import { createS3Client, ObjectBucket } from "../../services/object-store/object-bucket.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { startRegistry } from "../../services/registry/main.js";
import { buildTestArchive, type TestModelSpec } from "./model-archives.js";
import { RADOSGW_TOOLS, type RadosgwInstance } from "./radosgw.js";
import { startRadosgwWithBucket } from "./radosgw-bucket.js";

export const BUCKET = "models";
export const STORE = `s3://${BUCKET}/kepler-model-db`;
export const POLL_MS = 200;
export const FEATURES = ["bpf_cpu_time_ms"];

export let rgw: RadosgwInstance;
export let bucket: ObjectBucket;
const dirs: string[] = [];
export const handles: ServerHandle[] = [];

export function linear(trainerName: string, intercept: number, pipelineName = "shared"): TestModelSpec {
  return {
    pipelineName,
    energySource: "rapl-sysfs",
    featureGroup: "BPFOnly",
    trainerName,
    nodeType: 0,
    features: FEATURES,
    scale: [1000],
    maeWatts: 2,
    // package, core, uncore, dram
    model: { kind: "linear", components: [0, 1, 2, 3].map((i) => ({ intercept: intercept + i, coefficients: [10] })) },
    withWeights: true,
  };
}

export async function scratchDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "s3-store-"));
  dirs.push(dir);
  return dir;
}

export async function startReplica(options: { pollMs?: number } = {}): Promise<ServerHandle> {
  const handle = await startRegistry(
    {
      host: "127.0.0.1",
      port: 0,
      modelPath: await scratchDir(),
      rescanIntervalMs: 0,
      sourcePipelines: [],
      modelStore: STORE,
      modelStorePollMs: options.pollMs ?? POLL_MS,
      s3Endpoint: rgw.endpoint,
      s3Region: "us-east-1",
      s3TimeoutMs: 3000,
    },
    { logger: silentLogger() },
  );
  handles.push(handle);
  return handle;
}

export async function startLocalRegistry(): Promise<ServerHandle> {
  const handle = await startRegistry(
    { host: "127.0.0.1", port: 0, modelPath: await scratchDir(), rescanIntervalMs: 0, sourcePipelines: [] },
    { logger: silentLogger() },
  );
  handles.push(handle);
  return handle;
}

// A pipeline folder as `models export` writes it: top-level files and `<source>/<type>/<group>/<model>.zip`.
export async function writePipelineFolder(folder: string, pipelineName: string): Promise<void> {
  const archive = buildTestArchive(linear("LinearRegressionTrainer", 40, pipelineName));
  const group = join(folder, "rapl-sysfs", "AbsPower", "BPFOnly");
  await mkdir(group, { recursive: true });
  await writeFile(join(group, "LinearRegressionTrainer_0.zip"), archive.zip);
  await writeFile(
    join(folder, "metadata.json"),
    JSON.stringify({ name: pipelineName, abs_trainers: ["LinearRegressionTrainer"] }),
  );
  await writeFile(join(folder, "node_type_index.json"), "{}");
}

// kepler_model_registry_store_reachable{store=STORE}, as this process's /metrics shows it.
export async function reachableGauge(): Promise<number | undefined> {
  const metric = await metricsRegistry.getSingleMetric("kepler_model_registry_store_reachable")?.get();
  return metric?.values.find((v) => v.labels.store === STORE)?.value;
}

export async function modelNames(address: string, pipelineName = "shared"): Promise<string[]> {
  const registry = createRegistryClient(address);
  try {
    const response = await registry.client.listModels({ pipelineName });
    return response.models.map((m) => m.modelName).sort();
  } finally {
    registry.close();
  }
}

export async function eventually<T>(read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`not reached within ${timeoutMs} ms; last value ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Starts radosgw and the bucket before the file's tests (unless radosgw is missing: they skip), stops all after. */
export function useS3Store(): void {
  beforeAll(async () => {
    if (RADOSGW_TOOLS.some((tool) => !tool.available)) return; // their tests are skipped
    rgw = await startRadosgwWithBucket(BUCKET);
    bucket = new ObjectBucket(createS3Client({ endpoint: rgw.endpoint, region: "us-east-1", requestTimeoutMs: 5000 }), {
      bucket: BUCKET,
      prefix: "kepler-model-db",
    });
  }, 180_000);
  afterAll(async () => {
    for (const handle of handles.splice(0)) await handle.close();
    bucket?.close();
    await rgw?.stop();
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });
}
