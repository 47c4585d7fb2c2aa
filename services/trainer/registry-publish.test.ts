// The trainer with a registry address: archives go through RegistryService.PublishModel (real registry
// on 127.0.0.1:0), so the registry serves them at once and announces them to watchers.
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { goldenTable, goldenTestTimestamps } from "../../test/fixtures/trainer/fixtures.js";
import { ModelEventKind } from "../generated/kepler/model/v1/registry_service.js";
import { TrainOptions, type TrainRequest, TrainOutcome } from "../generated/kepler/model/v1/trainer_service.js";
import { OutputType } from "../generated/kepler/model/v1/types.js";
import type { ServerHandle } from "../kit/transport/grpc-server.js";
import { silentLogger } from "../kit/observe/logger.js";
import { tableToChunks } from "../kit/transport/table-codec.js";
import { createRegistryClient } from "../registry/client.js";
import { readRegistryConfig } from "../registry/config.js";
import { startRegistry } from "../registry/main.js";
import { createTrainerClient } from "./client.js";
import { readTrainerConfig } from "./config.js";
import { startTrainer } from "./main.js";

let registry: ServerHandle;
let trainer: ServerHandle;
let registryPath: string;
let trainerPath: string;

beforeAll(async () => {
  registryPath = await mkdtemp(join(tmpdir(), "trainer-registry-"));
  trainerPath = await mkdtemp(join(tmpdir(), "trainer-local-"));
  registry = await startRegistry(
    { ...readRegistryConfig({}), host: "127.0.0.1", port: 0, modelPath: registryPath, rescanIntervalMs: 0 },
    { logger: silentLogger() },
  );
  trainer = await startTrainer(
    { ...readTrainerConfig({}), host: "127.0.0.1", port: 0, modelPath: trainerPath, registryAddress: registry.address },
    { logger: silentLogger() },
  );
});

afterAll(async () => {
  await trainer?.close();
  await registry?.close();
  await rm(registryPath, { recursive: true, force: true });
  await rm(trainerPath, { recursive: true, force: true });
});

async function* requests(): AsyncGenerator<TrainRequest> {
  yield {
    content: {
      $case: "options",
      value: TrainOptions.fromPartial({
        featureGroup: "CounterOnly",
        energySource: "rapl-sysfs",
        outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
        trainerNames: ["LinearRegressionTrainer", "KNeighborsRegressorTrainer"],
        testTimestampsSeconds: goldenTestTimestamps("rapl-sysfs"),
        pipelineName: "via_registry",
      }),
    },
  };
  for (const chunk of tableToChunks(goldenTable("rapl-sysfs"), 100)) yield { content: { $case: "chunk", value: chunk } };
}

describe("trainer publishing through the registry", () => {
  it("stores every archive in the registry, announces it, and writes only checkpoints locally", async () => {
    const registryPeer = createRegistryClient(registry.address);
    const trainerPeer = createTrainerClient(trainer.address);
    const watch = new AbortController();
    try {
      const events = registryPeer.client.watchModels({ pipelineName: "via_registry" }, { signal: watch.signal });
      const iterator = events[Symbol.asyncIterator]();
      expect((await iterator.next()).value?.kind).toBe(ModelEventKind.MODEL_EVENT_KIND_WATCHING);

      const results = [];
      for await (const response of trainerPeer.client.train(requests())) {
        if (response.content?.$case === "result") results.push(response.content.value);
      }
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
      expect((await readdir(join(registryPath, ...group))).filter((f) => f.endsWith(".zip")).sort()).toEqual([
        "KNeighborsRegressorTrainer_0.zip",
        "LinearRegressionTrainer_0.zip",
      ]);
      // The trainer's own folder keeps only the checkpoints (continued training reads them there).
      expect(await readdir(join(trainerPath, ...group))).toEqual(["checkpoint"]);
    } finally {
      watch.abort();
      registryPeer.close();
      trainerPeer.close();
    }
  });
});
