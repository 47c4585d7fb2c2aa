// The trainer with a registry address: archives go through RegistryService.PublishModel (real registry
// on 127.0.0.1:0), so the registry serves them at once and announces them to watchers.
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { goldenTable } from "../../test/fixtures/trainer/fixtures.js";
import { type TrainerAndRegistry, goldenTrainOptions, startTrainerAndRegistry } from "../../test/support/train-calls.js";
import { ModelEventKind } from "../generated/kepler/model/v1/registry_service.js";
import { TrainOutcome } from "../generated/kepler/model/v1/trainer_service.js";
import { createRegistryClient } from "../registry/client.js";

let servers: TrainerAndRegistry;

beforeAll(async () => {
  servers = await startTrainerAndRegistry("trainer");
});

afterAll(async () => {
  await servers?.close();
});

describe("trainer publishing through the registry", () => {
  it("stores every archive in the registry, announces it, and writes only checkpoints locally", async () => {
    const registryPeer = createRegistryClient(servers.registry.address);
    const watch = new AbortController();
    try {
      const events = registryPeer.client.watchModels({ pipelineName: "via_registry" }, { signal: watch.signal });
      const iterator = events[Symbol.asyncIterator]();
      expect((await iterator.next()).value?.kind).toBe(ModelEventKind.MODEL_EVENT_KIND_WATCHING);

      const results = await servers.train(
        goldenTrainOptions("rapl-sysfs", ["LinearRegressionTrainer", "KNeighborsRegressorTrainer"], "via_registry"),
        goldenTable("rapl-sysfs"),
      );
      expect(results.map((r) => [r.trainerName, r.outcome])).toEqual([
        ["LinearRegressionTrainer", TrainOutcome.TRAIN_OUTCOME_SUCCEEDED],
        ["KNeighborsRegressorTrainer", TrainOutcome.TRAIN_OUTCOME_SUCCEEDED],
      ]);
      const published = [(await iterator.next()).value, (await iterator.next()).value];
      expect(published.map((e) => [e?.kind, e?.metadata?.modelName])).toEqual([
        [ModelEventKind.MODEL_EVENT_KIND_PUBLISHED, "LinearRegressionTrainer_0"],
        [ModelEventKind.MODEL_EVENT_KIND_PUBLISHED, "KNeighborsRegressorTrainer_0"],
      ]);

      const { models } = await registryPeer.client.listModels({ pipelineName: "via_registry" });
      // Golden package MAEs on this split: LinearRegression 7.933757 W, KNeighbors 3.651443 W (stored rounded).
      expect(models.map((m) => [m.modelName, m.maeWatts, m.hasWeights])).toEqual([
        ["KNeighborsRegressorTrainer_0", 3.65, false],
        ["LinearRegressionTrainer_0", 7.93, true],
      ]);

      const group = ["via_registry", "rapl-sysfs", "AbsPower", "CounterOnly"];
      expect((await readdir(join(servers.registryPath, ...group))).filter((f) => f.endsWith(".zip")).sort()).toEqual([
        "KNeighborsRegressorTrainer_0.zip",
        "LinearRegressionTrainer_0.zip",
      ]);
      // The trainer's own folder keeps only the checkpoints (continued training reads them there).
      expect(await readdir(join(servers.trainerPath, ...group))).toEqual(["checkpoint"]);
    } finally {
      watch.abort();
      registryPeer.close();
    }
  });
});
