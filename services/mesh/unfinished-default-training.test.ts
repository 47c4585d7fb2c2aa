// Which registry states count as an unfinished default training (removed, then trained again) and which
// are left alone: a real registry on 127.0.0.1, models published through its client.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../kit/observe/logger.js";
import { createRegistryClient } from "../registry/client.js";
import { startRegistry } from "../registry/main.js";
import { buildTestArchive, publishTestArchive } from "../../test/support/model-archives.js";
import { model } from "../../test/support/seeded-registry.js";
import { DEFAULT_PIPELINE_OPTIONS } from "./default-models.js";
import { removeUnfinishedDefaultTraining } from "./unfinished-default-training.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function registryWith(specs: Parameters<typeof model>[]) {
  const folder = await mkdtemp(join(tmpdir(), "unfinished-default-"));
  cleanups.push(() => rm(folder, { recursive: true, force: true }));
  const handle = await startRegistry(
    { host: "127.0.0.1", port: 0, modelPath: folder, rescanIntervalMs: 0, sourcePipelines: [] },
    { logger: silentLogger() },
  );
  cleanups.push(() => handle.close());
  const registry = createRegistryClient(handle.address);
  cleanups.push(async () => registry.close());
  for (const spec of specs) await publishTestArchive(registry, await buildTestArchive(model(...spec)));
  const names = async () =>
    (await registry.client.listModels({})).models.map((m) => `${m.location?.pipelineName}/${m.trainerName}`);
  return { registry, names };
}

const DEFAULT = { pipelineName: "default" };

describe("removeUnfinishedDefaultTraining", () => {
  it("removes the default pipeline's models when it has no metadata.json and nothing else holds models", async () => {
    const { registry, names } = await registryWith([
      ["LinearRegressionTrainer", 0, 5, DEFAULT],
      ["SGDRegressorTrainer", 0, 6, DEFAULT],
    ]);
    expect(await removeUnfinishedDefaultTraining(registry.client, DEFAULT_PIPELINE_OPTIONS)).toBe(2);
    expect(await names()).toEqual([]);
  });

  it("leaves a finished default training (metadata.json written) alone", async () => {
    const { registry, names } = await registryWith([["LinearRegressionTrainer", 0, 5, DEFAULT]]);
    await registry.client.putPipelineMetadata({ pipelineName: "default", metadataJson: '{"name":"default"}', files: [] });
    expect(await removeUnfinishedDefaultTraining(registry.client, DEFAULT_PIPELINE_OPTIONS)).toBe(0);
    expect(await names()).toEqual(["default/LinearRegressionTrainer"]);
  });

  it("leaves a default pipeline alone when another pipeline holds models or it holds other trainers' models", async () => {
    const beside = await registryWith([
      ["LinearRegressionTrainer", 0, 5, DEFAULT],
      ["LinearRegressionTrainer", 0, 5, { pipelineName: "mine" }],
    ]);
    expect(await removeUnfinishedDefaultTraining(beside.registry.client, DEFAULT_PIPELINE_OPTIONS)).toBe(0);
    expect((await beside.names()).sort()).toEqual(["default/LinearRegressionTrainer", "mine/LinearRegressionTrainer"]);
    const foreign = await registryWith([
      ["LinearRegressionTrainer", 0, 5, DEFAULT],
      ["KNeighborsRegressorTrainer", 1, 8, DEFAULT],
    ]);
    expect(await removeUnfinishedDefaultTraining(foreign.registry.client, DEFAULT_PIPELINE_OPTIONS)).toBe(0);
    expect(await foreign.names()).toHaveLength(2);
  });
});
