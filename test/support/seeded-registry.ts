// The registry the server tests share: a real registry on 127.0.0.1:0 over a temporary MODEL_PATH, two
// machines indexed in pipeline "std" and five models published (BPFOnly node types 0, 1 and 10, one
// CounterOnly), each kept as published.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { OutputType } from "../../services/generated/kepler/model/v1/types.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { startRegistry } from "../../services/registry/main.js";
import { buildTestArchive, publishTestArchive, type TestModelSpec } from "./model-archives.js";

export const ABS = OutputType.OUTPUT_TYPE_ABS_POWER;
export const BPF = ["bpf_cpu_time_ms", "bpf_page_cache_hit"];
export const COUNTER = ["cache_miss", "cpu_cycles", "cpu_instructions"];
export const FIXTURE = new URL("../fixtures/registry/ec2-fixture", import.meta.url).pathname;
const linear = (intercept: number) => ({
  kind: "linear" as const,
  components: [0, 1, 2, 3].map((i) => ({ intercept: intercept + i, coefficients: [10, 1] })),
});

/** A BPFOnly linear model of pipeline "std" on rapl-sysfs, with `extra` on top. */
export function model(
  trainerName: string,
  nodeType: number,
  maeWatts: number,
  extra: Partial<TestModelSpec> = {},
): TestModelSpec {
  return {
    pipelineName: "std",
    energySource: "rapl-sysfs",
    featureGroup: "BPFOnly",
    trainerName,
    nodeType,
    features: BPF,
    scale: [1000, 1],
    maeWatts,
    model: linear(100),
    ...extra,
  };
}

export interface SeededRegistry {
  readonly dir: string;
  readonly handle: Awaited<ReturnType<typeof startRegistry>>;
  readonly registry: ReturnType<typeof createRegistryClient>;
  /** Archive bytes by model name + feature group. */
  readonly published: Map<string, Uint8Array>;
  close(): Promise<void>;
}

/** Starts the registry and publishes the models (the tests' beforeAll). */
export async function startSeededRegistry(): Promise<SeededRegistry> {
  const published = new Map<string, Uint8Array>();
  const dir = await mkdtemp(join(tmpdir(), "registry-"));
  const handle = await startRegistry(
    { host: "127.0.0.1", port: 0, modelPath: dir, rescanIntervalMs: 0, sourcePipelines: [] },
    { logger: silentLogger() },
  );
  const registry = createRegistryClient(handle.address);
  const machine = (processor: string, cores: number, memoryGib: number) => ({
    processor,
    cores,
    chips: 2,
    memoryGib,
    frequencyMhz: 3500,
    vendor: "",
    threadsPerCore: 0,
  });
  expect(
    await registry.client.indexMachine({
      pipelineName: "std",
      machineId: "m5",
      spec: machine("intel_xeon_platinum_8259cl", 96, 377),
    }),
  ).toEqual({ nodeType: 0, created: true });
  expect(
    await registry.client.indexMachine({ pipelineName: "std", machineId: "i3", spec: machine("intel_xeon_e5_2686v4", 72, 503) }),
  ).toEqual({ nodeType: 1, created: true });
  for (const spec of [
    model("SGDRegressorTrainer", 0, 20, { withWeights: true }),
    model("LinearRegressionTrainer", 0, 12),
    model("KNeighborsRegressorTrainer", 1, 8, {
      model: {
        kind: "knn",
        k: 1,
        fitXColumns: [
          [0, 1],
          [0, 0],
        ],
        fitY: [
          [100, 200],
          [0, 0],
          [0, 0],
          [10, 20],
        ],
      },
    }),
    model("SGDRegressorTrainer", 10, 3, { withWeights: true }),
    model("LinearRegressionTrainer", 0, 5, {
      featureGroup: "CounterOnly",
      features: COUNTER,
      scale: [1, 1, 1],
      model: { kind: "linear", components: [0, 1, 2, 3].map(() => ({ intercept: 1, coefficients: [1, 1, 1] })) },
    }),
  ]) {
    const archive = buildTestArchive(spec);
    const response = await publishTestArchive(registry, archive);
    expect(response.replaced).toBe(false);
    published.set(archive.location.modelName + archive.location.featureGroup, archive.zip);
  }
  return {
    dir,
    handle,
    registry,
    published,
    async close() {
      registry.close();
      await handle.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** SelectModel of the BPF features on rapl-sysfs AbsPower, metadata only unless `request` says otherwise. */
export const selectFrom = (registry: ReturnType<typeof createRegistryClient>) => (request: Record<string, unknown>) =>
  registry.client.selectModel({ featureNames: BPF, outputType: ABS, energySource: "rapl-sysfs", metadataOnly: true, ...request });
