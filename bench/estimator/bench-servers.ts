// The estimator bench's setup: the registry and estimator in a child process, the two benchmark models
// (linear and k-nearest-neighbour, from a fixed seed) published there, and Estimate requests of n rows.
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { type EstimateRequest } from "../../services/generated/kepler/model/v1/estimator_service.js";
import { OutputType } from "../../services/generated/kepler/model/v1/types.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { buildTestArchive, publishTestArchive, type TestArchive } from "../../test/support/model-archives.js";

export const FEATURES = ["bpf_cpu_time_ms", "bpf_page_cache_hit", "cache_miss", "cpu_cycles", "cpu_instructions"]; // Basic
export const KNN_TRAINING_ROWS = 1000;

// Deterministic pseudo-random numbers (xorshift), so every run sees the same data.
function random(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

/** `kepler-model serve registry estimator` of the checkout at `root` (this one by default; a baseline's with --baseline). */
export async function startServers(
  modelPath: string,
  metricsPort = "0",
  root = new URL("../../", import.meta.url).pathname,
): Promise<{ child: ChildProcess; registry: string; estimator: string }> {
  const bin = join(root, "bin/kepler-model.js");
  const child = spawn(
    process.execPath,
    [
      bin,
      "serve",
      "registry",
      "estimator",
      "--model-path",
      modelPath,
      "--registry-port",
      "0",
      "--estimator-port",
      "0",
      "--metrics-port",
      metricsPort,
      "--log-level",
      "warn",
      "--log-format",
      "json",
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let output = "";
  const addresses = await new Promise<{ registry: string; estimator: string }>((resolve, reject) => {
    child.stdout?.on("data", (data: Buffer) => {
      output += data.toString();
      const registry = /registry\s+(\S+:\d+)/.exec(output)?.[1];
      const estimator = /estimator\s+(\S+:\d+)/.exec(output)?.[1];
      if (registry !== undefined && estimator !== undefined) resolve({ registry, estimator });
    });
    child.on("exit", (code) => reject(new Error(`servers exited (${code}): ${output}`)));
  });
  return { child, ...addresses };
}

let archives: { linear: TestArchive; knn: TestArchive } | undefined;

// The two benchmark models, built once from a fixed seed.
export function benchArchives(): { linear: TestArchive; knn: TestArchive } {
  if (archives !== undefined) return archives;
  const next = random(7);
  const common = {
    pipelineName: "bench",
    energySource: "rapl-sysfs" as const,
    featureGroup: "Basic",
    nodeType: 0,
    features: FEATURES,
    scale: [96000, 5000, 1e9, 1e11, 1e11],
  };
  const linear = buildTestArchive({
    ...common,
    trainerName: "LinearRegressionTrainer",
    maeWatts: 10,
    model: {
      kind: "linear",
      components: [100, 0, 5, 20].map((b) => ({ intercept: b, coefficients: FEATURES.map(() => 10 * next()) })),
    },
  });
  const columns = FEATURES.map(() => Array.from({ length: KNN_TRAINING_ROWS }, next));
  const knn = buildTestArchive({
    ...common,
    trainerName: "KNeighborsRegressorTrainer",
    maeWatts: 8,
    model: {
      kind: "knn",
      k: 6,
      fitXColumns: columns,
      fitY: [0, 1, 2, 3].map(() => Array.from({ length: KNN_TRAINING_ROWS }, () => 100 * next())),
    },
  });
  archives = { linear, knn };
  return archives;
}

export async function publishModels(registryAddress: string): Promise<void> {
  const registry = createRegistryClient(registryAddress);
  await publishTestArchive(registry, benchArchives().linear);
  await publishTestArchive(registry, benchArchives().knn);
  registry.close();
}

export function estimateRequest(trainerName: string, rows: number): EstimateRequest {
  const next = random(rows);
  const values = Float64Array.from({ length: rows * FEATURES.length }, (_, i) => next() * [96000, 5000, 1e9, 1e11, 1e11][i % 5]!);
  return {
    featureNames: FEATURES,
    rowCount: rows,
    values: Buffer.from(values.buffer),
    valueList: [],
    outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
    energySource: "rapl-sysfs",
    systemFeatureNames: [],
    systemFeatureValues: [],
    trainerName,
    filter: "",
    machineSpec: { processor: "", cores: 96, chips: 0, memoryGib: 0, frequencyMhz: 0, vendor: "", threadsPerCore: 0 },
    unavailableFeatureNames: [],
    pipelineName: "bench",
  };
}
