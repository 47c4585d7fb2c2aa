// docs/adding-a-trainer.md, done as a user would: a toy trainer in one file (test/fixtures/trainer/mean-trainer.ts,
// registering itself through registerTrainer), loaded by the trainer's --trainer-modules, is listed by ListTrainers, trains through the trainer service over
// real gRPC, is published to a real registry, and the estimator serves Estimate with it: every component's
// power is that component's mean over the training rows, whatever the features.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixturePath, goldenTable, goldenTestTimestamps } from "../../test/fixtures/trainer/fixtures.js";
import { type TrainerAndRegistry, goldenTrainOptions, startTrainerAndRegistry } from "../../test/support/train-calls.js";
import { createEstimatorClient } from "../estimator/client.js";
import { readEstimatorConfig } from "../estimator/config.js";
import { startEstimator } from "../estimator/main.js";
import { TrainOutcome } from "../generated/kepler/model/v1/trainer_service.js";
import { OutputType } from "../generated/kepler/model/v1/types.js";
import type { ServerHandle } from "../kit/transport/grpc-server.js";
import { silentLogger } from "../kit/observe/logger.js";
import { createRegistryClient } from "../registry/client.js";
import { createTrainerClient } from "./client.js";
import { InvalidInputError } from "../domain/errors.js";
import { findTrainer, registerTrainer } from "./domain/trainer-registry.js";
import { loadTrainerModules } from "./load-trainer-modules.js";

const PIPELINE = "with_mean_trainer";
const MEAN_TRAINER_FILE = fixturePath("mean-trainer.ts");
const COMPONENTS = ["package", "core", "uncore", "dram"];
const COUNTER = ["cache_miss", "cpu_cycles", "cpu_instructions"];

let servers: TrainerAndRegistry;
let estimator: ServerHandle;

beforeAll(async () => {
  // A fit worker thread, as deployed: it imports the trainer module itself.
  servers = await startTrainerAndRegistry("mean-trainer", { workerThreads: 1, trainerModules: [MEAN_TRAINER_FILE] });
  estimator = await startEstimator(
    {
      ...readEstimatorConfig({}),
      host: "127.0.0.1",
      port: 0,
      registryAddress: servers.registry.address,
      estimatorSocket: "",
    },
    { logger: silentLogger() },
  );
});

afterAll(async () => {
  await estimator?.close();
  await servers?.close();
});

// Each component's mean power over the rows the golden split trains on (independent of the trainer's code).
function trainingMeans(): Map<string, number> {
  const table = goldenTable("rapl-sysfs");
  const test = new Set(goldenTestTimestamps("rapl-sysfs"));
  const means = new Map<string, number>();
  for (const component of COMPONENTS) {
    const column = table.columnNames.indexOf(`${component}_power`);
    let sum = 0;
    let count = 0;
    for (let row = 0; row < table.rowCount; row++) {
      if (test.has(table.timestamps[row] as number)) continue;
      sum += table.values[column * table.rowCount + row] as number;
      count++;
    }
    means.set(component, sum / count);
  }
  return means;
}

describe("a trainer added in one file", () => {
  it("is listed by ListTrainers after the built-ins, with its model class and weight capability", async () => {
    const peer = createTrainerClient(servers.trainer.address);
    try {
      const { trainers } = await peer.client.listTrainers({});
      expect(trainers.length).toBe(11);
      expect(trainers.at(-1)).toEqual({
        trainerName: "MeanTrainer",
        modelClass: "scikit",
        weightCapable: true,
        description: "Predicts the training mean of each component (a toy: the guide's example).",
      });
      expect(trainers[0]?.trainerName).toBe("PolynomialRegressionTrainer");
    } finally {
      peer.close();
    }
  });

  it("refuses a second definition under a taken name, and names that cannot be model names", () => {
    const meanTrainer = findTrainer("MeanTrainer");
    if (meanTrainer === undefined) throw new Error("MeanTrainer is not registered");
    expect(() => registerTrainer(meanTrainer)).not.toThrow();
    expect(() => registerTrainer({ ...meanTrainer })).toThrow(
      new InvalidInputError("trainer.name", "trainer MeanTrainer is already registered"),
    );
    expect(() => registerTrainer({ ...meanTrainer, name: "Mean_Trainer" })).toThrow(
      new InvalidInputError("trainer.name", '"Mean_Trainer" must be letters and digits, starting with a letter'),
    );
  });

  it("refuses a trainer module that registers nothing or cannot be imported, naming the entry", async () => {
    const helpers = fixturePath("fixtures.ts");
    await expect(loadTrainerModules([MEAN_TRAINER_FILE, helpers])).rejects.toThrow(
      new InvalidInputError("trainer_modules[1]", `${helpers} registered no trainer (call registerTrainer)`),
    );
    await expect(loadTrainerModules(["/nonexistent/trainer.ts"])).rejects.toThrow(
      /^trainer_modules\[0\]: cannot import \/nonexistent\/trainer\.ts: /,
    );
  });

  it("trains through the trainer service, is published, and the estimator serves the training mean", async () => {
    const registryPeer = createRegistryClient(servers.registry.address);
    const estimatorPeer = createEstimatorClient(estimator.address);
    try {
      const results = await servers.train(
        goldenTrainOptions("rapl-sysfs", ["MeanTrainer", "LinearRegressionTrainer"], PIPELINE),
        goldenTable("rapl-sysfs"),
      );
      expect(results.map((r) => [r.trainerName, r.outcome])).toEqual([
        ["MeanTrainer", TrainOutcome.TRAIN_OUTCOME_SUCCEEDED],
        ["LinearRegressionTrainer", TrainOutcome.TRAIN_OUTCOME_SUCCEEDED],
      ]);

      const { models } = await registryPeer.client.listModels({ pipelineName: PIPELINE });
      expect(models.map((m) => [m.modelName, m.hasWeights]).sort()).toEqual([
        ["LinearRegressionTrainer_0", true],
        ["MeanTrainer_0", true],
      ]);

      const means = trainingMeans();
      const rows = [
        [1300613.6666666667, 796627956.0000001, 826964507.0],
        [0, 0, 0],
        [5e6, 9e9, 2e10],
      ];
      const response = await estimatorPeer.client.estimate({
        featureNames: COUNTER,
        rowCount: rows.length,
        values: Buffer.from(Float64Array.from(rows.flat()).buffer),
        valueList: [],
        outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
        energySource: "rapl-sysfs",
        systemFeatureNames: [],
        systemFeatureValues: [],
        trainerName: "MeanTrainer",
        filter: "",
        unavailableFeatureNames: [],
        pipelineName: PIPELINE,
      });
      expect(response.modelName).toBe("MeanTrainer_0");
      expect(response.componentPowers.map((c) => c.component).sort()).toEqual([...COMPONENTS].sort());
      for (const { component, powerWatts } of response.componentPowers) {
        const mean = means.get(component) as number;
        expect(powerWatts).toHaveLength(rows.length);
        for (const watts of powerWatts) expect(watts).toBeCloseTo(mean, 9);
      }
      // Not a constant everywhere: package power varies, so the check above is the mean, not any number.
      expect(means.get("package")).toBeGreaterThan(10);

      // weight.json: Kepler's linear formula gives the bias, i.e. the same mean.
      const location = {
        pipelineName: PIPELINE,
        energySource: "rapl-sysfs",
        outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
        featureGroup: "CounterOnly",
        modelName: "MeanTrainer_0",
      };
      const weights = JSON.parse((await registryPeer.client.getModelWeights({ location })).weightJson);
      for (const component of COMPONENTS) {
        expect(weights[component].All_Weights.Bias_Weight).toBeCloseTo(means.get(component) as number, 9);
      }
    } finally {
      registryPeer.close();
      estimatorPeer.close();
    }
  });
});
