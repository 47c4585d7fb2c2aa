// The unix-socket estimator the socket tests share: a real registry (the ec2 fixture pipeline plus DynPower
// models published through PublishModel) and a real estimator on gRPC and a socket; Kepler 0.7.12's idle
// request byte for byte, and gRPC Estimate on the rows of a socket request for comparison.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { createEstimatorClient } from "../../services/estimator/client.js";
import { readEstimatorConfig } from "../../services/estimator/config.js";
import { startEstimator } from "../../services/estimator/main.js";
import { OutputType } from "../../services/generated/kepler/model/v1/types.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { zipFolderTree } from "../../services/models/index.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { readRegistryConfig } from "../../services/registry/config.js";
import { startRegistry } from "../../services/registry/main.js";
import { importPipelineZip } from "./import-pipeline-zip.js";
import { KEPLER_0712_METRICS } from "./kepler-sidecar-client.js";
import { bpfLinearSpec, buildTestArchive, publishTestArchive } from "./model-archives.js";

const FIXTURE = new URL("../fixtures/registry/ec2-fixture", import.meta.url).pathname;
// Kepler 0.7.12's sidecar PowerRequest for the idle call, byte for byte (issue 12).
export const KEPLER_0_7_12_IDLE =
  '{"metrics":["bpf_cpu_time_ms","bpf_page_cache_hit","bpf_net_tx_irq","bpf_net_rx_irq","bpf_block_irq","cpu_cycles","cpu_instructions","cache_miss"],"values":[[0,0,0,0,0,0,0,0]],"output_type":"AbsPower","source":"intel_rapl","system_features":["cpu_architecture"],"system_values":["unknown"],"trainer_name":"","filter":""}';
export const METRICS_0_7_12 = [...KEPLER_0712_METRICS];
export const BUSY_ROW = [5210.33, 420, 12, 15.67, 3, 314660758.667, 830713763.667, 12722920.333];
export const COMPONENTS = { intel_rapl: ["package", "core", "uncore", "dram"], acpi: ["platform"] } as const;

export function dynPowerModel(energySource: "rapl-sysfs" | "acpi", intercepts: number[]) {
  return buildTestArchive(
    bpfLinearSpec("ec2-fixture", intercepts, {
      energySource,
      outputType: "DynPower",
      machineSpec: { processor: "intel_xeon_platinum_8259cl", cores: 96, chips: 2, memory: 377, frequency: 3500 },
    }),
  );
}

/** The registry and estimator, started (the socket tests' beforeAll). */
export async function startSocketEstimator() {
  const dir = await mkdtemp(join(tmpdir(), "estimator-socket-"));
  const socketPath = join(dir, "estimator.sock");
  const registryHandle = await startRegistry(
    { ...readRegistryConfig({}), host: "127.0.0.1", port: 0, modelPath: join(dir, "models"), rescanIntervalMs: 0 },
    { logger: silentLogger() },
  );
  const registry = createRegistryClient(registryHandle.address);
  const imported = await importPipelineZip(registry, "ec2-fixture", await zipFolderTree(FIXTURE));
  expect(imported.importedModelCount).toBe(3);
  await publishTestArchive(registry, dynPowerModel("rapl-sysfs", [12, -5, 1.5, 4]));
  await publishTestArchive(registry, dynPowerModel("acpi", [20]));
  const estimatorHandle = await startEstimator(
    {
      ...readEstimatorConfig({}),
      host: "127.0.0.1",
      port: 0,
      registryAddress: registryHandle.address,
      estimatorSocket: socketPath,
    },
    { logger: silentLogger() },
  );
  const estimator = createEstimatorClient(estimatorHandle.address);
  return {
    dir,
    socketPath,
    registryHandle,
    estimatorHandle,
    registry,
    estimator,
    async close() {
      estimator.close();
      registry.close();
      await estimatorHandle.close();
      await registryHandle.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export type SocketEstimator = Awaited<ReturnType<typeof startSocketEstimator>>;

/** gRPC Estimate on the same rows and query as the socket request (own machine, no pipeline). */
export async function grpcPowersOf(
  estimator: ReturnType<typeof createEstimatorClient>,
  request: string,
): Promise<{ powers: Record<string, number[]>; coreRatio: number }> {
  const fields = JSON.parse(request) as {
    metrics: string[];
    values: number[][];
    output_type: string;
    source: string;
    system_features: string[];
    system_values: string[];
  };
  const response = await estimator.client.estimate({
    featureNames: fields.metrics,
    rowCount: fields.values.length,
    values: Buffer.from(Float64Array.from(fields.values.flat()).buffer),
    valueList: [],
    outputType: fields.output_type === "AbsPower" ? OutputType.OUTPUT_TYPE_ABS_POWER : OutputType.OUTPUT_TYPE_DYN_POWER,
    energySource: fields.source,
    systemFeatureNames: fields.system_features,
    systemFeatureValues: fields.system_values,
    trainerName: "",
    filter: "",
    unavailableFeatureNames: [],
    pipelineName: "",
  });
  return {
    powers: Object.fromEntries(response.componentPowers.map((c) => [c.component, c.powerWatts])),
    coreRatio: response.coreRatio,
  };
}
