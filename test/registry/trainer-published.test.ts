// End to end over real gRPC: models fitted by the trainers (services/trainer's domain, on the recorded
// coremark CounterOnly table) are published to the registry; SelectModel picks the lowest-MAE one, and
// the estimator's prediction from the SGD model's JSON files equals Kepler's formula on its weight.json.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEstimatorClient } from "../../services/estimator/client.js";
import { startEstimator } from "../../services/estimator/main.js";
import { OutputType } from "../../services/generated/kepler/model/v1/types.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { createZip, roundTo2 } from "../../services/models/index.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { startRegistry } from "../../services/registry/main.js";
import { publishTestArchive } from "../support/model-archives.js";
import { readTableCsv } from "../../services/trainer/domain/read-table-csv.js";
import { trainModels } from "../../services/trainer/domain/train-models.js";
import type { TrainModelsResult } from "../../services/trainer/domain/training-results.js";
import { listTrainers } from "../../services/trainer/domain/trainer-registry.js";
import { startTestEstimator } from "../support/test-estimator.js";

const TABLE = new URL("../fixtures/trainer/extract_abs_rapl-sysfs_CounterOnly.csv", import.meta.url).pathname;
const COUNTER = ["cache_miss", "cpu_cycles", "cpu_instructions"];

let dir: string;
let registryHandle: Awaited<ReturnType<typeof startRegistry>>;
let estimatorHandle: Awaited<ReturnType<typeof startEstimator>>;
let registry: ReturnType<typeof createRegistryClient>;
let trained: TrainModelsResult;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "trainer-published-"));
  registryHandle = await startRegistry(
    { host: "127.0.0.1", port: 0, modelPath: dir, rescanIntervalMs: 0, sourcePipelines: [] },
    { logger: silentLogger() },
  );
  registry = createRegistryClient(registryHandle.address);
  trained = await trainModels(
    {
      table: readTableCsv(await readFile(TABLE, "utf8"), TABLE),
      energySource: "rapl-sysfs",
      featureGroup: "CounterOnly",
      outputType: "AbsPower",
      trainerNames: listTrainers().map((t) => t.name),
      seed: 0,
      pipelineName: "std_v0.7.11",
    },
    {
      publishModel: async (archive) =>
        void (await publishTestArchive(registry, { location: archive.location, zip: createZip(archive.files) })),
    },
  );
  estimatorHandle = await startTestEstimator(registryHandle.address);
}, 120_000);

afterAll(async () => {
  registry.close();
  await estimatorHandle.close();
  await registryHandle.close();
  await rm(dir, { recursive: true, force: true });
});

describe("trainer-published models", () => {
  it("SelectModel picks the lowest metadata MAE among the published trainers", async () => {
    const succeeded = trained.results.filter((r) => r.outcome === "succeeded");
    expect(succeeded.length).toBeGreaterThanOrEqual(4);
    const mae = (r: (typeof succeeded)[number]) => Math.max(...r.components.map((c) => roundTo2(c.maeWatts)));
    const best = succeeded.reduce((a, b) => (mae(b) < mae(a) ? b : a));
    const response = await registry.client.selectModel({
      featureNames: [...COUNTER, "bpf_cpu_time_ms"],
      outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
      energySource: "rapl-sysfs",
      metadataOnly: true,
    });
    expect(response.metadata?.modelName).toBe(best.modelName);
    expect(response.metadata?.maeWatts).toBe(mae(best));
    expect(response.selection?.candidateCount).toBe(succeeded.length);
  });

  it("the estimator's SGD prediction equals Kepler's formula on the model's weight.json", async () => {
    const location = {
      pipelineName: "std_v0.7.11",
      energySource: "rapl-sysfs",
      outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
      featureGroup: "CounterOnly",
      modelName: "SGDRegressorTrainer_0",
    };
    const weights = JSON.parse((await registry.client.getModelWeights({ location })).weightJson);
    const rows = [
      [1300613.6666666667, 796627956.0000001, 826964507.0],
      [0, 0, 0],
    ];
    const estimator = createEstimatorClient(estimatorHandle.address);
    const response = await estimator.client.estimate({
      featureNames: COUNTER,
      rowCount: rows.length,
      values: Buffer.from(Float64Array.from(rows.flat()).buffer),
      valueList: [],
      outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
      energySource: "rapl-sysfs",
      systemFeatureNames: [],
      systemFeatureValues: [],
      trainerName: "SGDRegressorTrainer",
      filter: "",
      unavailableFeatureNames: [],
      pipelineName: "std_v0.7.11",
    });
    estimator.close();
    expect(response.modelName).toBe("SGDRegressorTrainer_0");
    for (const { component, powerWatts } of response.componentPowers) {
      const all = weights[component].All_Weights;
      rows.forEach((row, i) => {
        const kepler = COUNTER.reduce(
          (sum, feature, j) =>
            sum + all.Numerical_Variables[feature].weight * ((row[j] as number) / all.Numerical_Variables[feature].scale),
          all.Bias_Weight,
        );
        expect(powerWatts[i]).toBeCloseTo(Math.max(0, kepler), 9);
      });
    }
  });
});
