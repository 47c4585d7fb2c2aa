// Server tests: a real registry on 127.0.0.1:0 over a temporary MODEL_PATH, called with the generated client.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { Status } from "nice-grpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModelEventKind } from "../generated/kepler/model/v1/registry_service.js";
import { NodeTypeMatchKind } from "../generated/kepler/model/v1/model.js";
import { buildTestArchive, publishTestArchive } from "../../test/support/model-archives.js";

import {
  ABS,
  BPF,
  COUNTER,
  model,
  type SeededRegistry,
  selectFrom,
  startSeededRegistry,
} from "../../test/support/seeded-registry.js";

let dir: string;
let registry: SeededRegistry["registry"];
let published: SeededRegistry["published"];
let seeded: SeededRegistry;

beforeAll(async () => {
  seeded = await startSeededRegistry();
  ({ dir, registry, published } = seeded);
});

afterAll(async () => {
  await seeded.close();
});

const select = (request: Record<string, unknown>) => selectFrom(registry)(request);

describe("SelectModel", () => {
  it("picks the lowest-MAE model and explains why", async () => {
    const response = await select({ featureNames: [...BPF, ...COUNTER, "cpu_architecture"] });
    expect(response.metadata?.modelName).toBe("SGDRegressorTrainer_10");
    expect(response.selection).toEqual({
      featureGroup: "BPFOnly",
      validFeatureGroups: ["CounterOnly", "BPFOnly", "Basic"],
      nodeTypeMatch: {
        nodeType: -1,
        uncertainty: -1,
        looseness: -1,
        kind: NodeTypeMatchKind.NODE_TYPE_MATCH_KIND_NONE,
        pipelineName: "std",
        nodeTypeSpec: undefined,
        similarity: -1,
        reason: "any node type (no machine spec)",
      },
      modelMatchesNodeType: true,
      maeWatts: 3,
      candidateCount: 5,
      reason:
        'SGDRegressorTrainer_10 has the lowest held-out MAE (3 W) of 5 candidate models in CounterOnly, BPFOnly, Basic of pipeline "std"; trained for any node type (no machine spec)',
    });
  });

  it("matches node types exactly (node type 1 is not 10) and prefers a matched model over a lower MAE", async () => {
    const response = await select({ featureNames: [...BPF, ...COUNTER], nodeType: 1 });
    expect(response.metadata?.modelName).toBe("KNeighborsRegressorTrainer_1");
    expect(response.selection?.modelMatchesNodeType).toBe(true);
    expect(response.selection?.nodeTypeMatch?.kind).toBe(NodeTypeMatchKind.NODE_TYPE_MATCH_KIND_REQUESTED);
  });

  it("matches trainer names exactly", async () => {
    expect((await select({ trainerName: "SGDRegressorTrainer" })).metadata?.modelName).toBe("SGDRegressorTrainer_10");
    await expect(select({ trainerName: "SGDRegressor" })).rejects.toMatchObject({
      code: Status.FAILED_PRECONDITION,
      details:
        '4 AbsPower models for rapl-sysfs in pipeline "std" cover the given features, but none passes trainer_name "SGDRegressor"',
    });
  });

  it("applies filters: maxima, the features list", async () => {
    expect((await select({ filter: "mae:10;features:bpf_cpu_time_ms,bpf_page_cache_hit" })).metadata?.modelName).toBe(
      "SGDRegressorTrainer_10",
    );
    expect(
      (await select({ featureNames: [...BPF, ...COUNTER], filter: "features:cache_miss,cpu_cycles,cpu_instructions" })).metadata
        ?.modelName,
    ).toBe("LinearRegressionTrainer_0");
    await expect(select({ filter: "mae:2" })).rejects.toMatchObject({
      code: Status.FAILED_PRECONDITION,
      details: '4 AbsPower models for rapl-sysfs in pipeline "std" cover the given features, but none passes filter "mae:2"',
    });
    await expect(select({ filter: "mae" })).rejects.toMatchObject({
      code: Status.INVALID_ARGUMENT,
      details: 'filter: "mae" is not key:value',
    });
  });

  it("returns weight.json for weight-capable trainers when weight is set", async () => {
    const response = await select({ weight: true, nodeType: 0, metadataOnly: false });
    expect(response.metadata?.modelName).toBe("SGDRegressorTrainer_0");
    expect(response.payload?.$case).toBe("weightJson");
    const weights = JSON.parse(response.payload?.value as string);
    expect(weights.package.All_Weights).toEqual({
      Bias_Weight: 100,
      Categorical_Variables: {},
      Numerical_Variables: { bpf_cpu_time_ms: { scale: 1000, weight: 10 }, bpf_page_cache_hit: { scale: 1, weight: 1 } },
    });
  });

  it("returns the archive bytes otherwise", async () => {
    const response = await select({ trainerName: "LinearRegressionTrainer", metadataOnly: false });
    expect(response.payload?.$case).toBe("archive");
    expect(
      Buffer.compare(
        response.payload?.value as Buffer,
        Buffer.from(published.get("LinearRegressionTrainer_0BPFOnly") as Uint8Array),
      ),
    ).toBe(0);
  });

  it("matches a machine spec by cover and reports the uncertainty", async () => {
    const response = await select({
      machineSpec: { processor: "", cores: 72, chips: 0, memoryGib: 0, frequencyMhz: 0, vendor: "", threadsPerCore: 0 },
    });
    expect(response.metadata?.modelName).toBe("KNeighborsRegressorTrainer_1");
    expect(response.selection?.nodeTypeMatch).toMatchObject({
      nodeType: 1,
      uncertainty: 0,
      looseness: 0,
      kind: NodeTypeMatchKind.NODE_TYPE_MATCH_KIND_COVER,
    });
  });

  it("names the given features and the closest model's when nothing covers them", async () => {
    await expect(select({ featureNames: ["cpu_cycles", "bpf_cpu_time_ms"] })).rejects.toMatchObject({
      code: Status.FAILED_PRECONDITION,
      details:
        'no AbsPower model for rapl-sysfs in pipeline "std" covers the given features [cpu_cycles, bpf_cpu_time_ms]; the closest, SGDRegressorTrainer_10 (BPFOnly), needs [bpf_cpu_time_ms, bpf_page_cache_hit] (missing [bpf_page_cache_hit])',
    });
    await expect(select({ unavailableFeatureNames: ["bpf_page_cache_hit"] })).rejects.toMatchObject({
      code: Status.FAILED_PRECONDITION,
    });
  });

  it("refuses other node types when loose_node_type is false", async () => {
    await expect(select({ nodeType: 7, looseNodeType: false })).rejects.toMatchObject({
      code: Status.NOT_FOUND,
      details: 'AbsPower model for rapl-sysfs in pipeline "std" trained for node type 7 (loose_node_type is false) not found',
    });
  });
});

describe("listing and archives", () => {
  it("lists the best model per output type and feature group", async () => {
    const response = await registry.client.listBestModels({ energySource: "intel_rapl" });
    expect(response.bestModels.map((b) => [b.featureGroup, b.modelName, b.maeWatts])).toEqual([
      ["CounterOnly", "LinearRegressionTrainer_0", 5],
      ["BPFOnly", "SGDRegressorTrainer_10", 3],
    ]);
    const strict = await registry.client.listBestModels({ nodeType: 0, featureGroup: "BPFOnly" });
    expect(strict.bestModels.map((b) => b.modelName)).toEqual(["LinearRegressionTrainer_0"]);
  });

  it("lists models with filters and pages", async () => {
    const first = await registry.client.listModels({ pipelineName: "std", pageSize: 3 });
    expect(first.models.map((m) => m.modelName)).toEqual([
      "KNeighborsRegressorTrainer_1",
      "LinearRegressionTrainer_0",
      "SGDRegressorTrainer_0",
    ]);
    const second = await registry.client.listModels({ pipelineName: "std", pageSize: 3, pageToken: first.nextPageToken });
    expect(second.models.map((m) => `${m.location?.featureGroup}/${m.modelName}`)).toEqual([
      "BPFOnly/SGDRegressorTrainer_10",
      "CounterOnly/LinearRegressionTrainer_0",
    ]);
    expect(second.nextPageToken).toBe("");
    const sgd = await registry.client.listModels({ trainerName: "SGDRegressorTrainer", filter: "mae:5" });
    expect(sgd.models.map((m) => [m.modelName, m.hasWeights, m.componentMetrics.length])).toEqual([
      ["SGDRegressorTrainer_10", true, 4],
    ]);
  });

  it("streams an archive back byte for byte", async () => {
    const location = {
      pipelineName: "std",
      energySource: "rapl-sysfs",
      outputType: ABS,
      featureGroup: "BPFOnly",
      modelName: "KNeighborsRegressorTrainer_1",
    };
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const message of registry.client.getModelArchive({ location })) {
      if (message.metadata !== undefined) size = message.archiveSizeBytes;
      chunks.push(message.archiveChunk);
    }
    const bytes = Buffer.concat(chunks);
    expect(bytes.byteLength).toBe(size);
    expect(Buffer.compare(bytes, Buffer.from(published.get("KNeighborsRegressorTrainer_1BPFOnly") as Uint8Array))).toBe(0);
    await expect(registry.client.getModelWeights({ location })).rejects.toMatchObject({ code: Status.NOT_FOUND });
  });

  it("lays models out as kepler-model-db does: zip, weight sibling, unpacked folder with weight.json", async () => {
    const group = join(dir, "std/rapl-sysfs/AbsPower/BPFOnly");
    expect((await readdir(group)).sort()).toEqual([
      "KNeighborsRegressorTrainer_1",
      "KNeighborsRegressorTrainer_1.zip",
      "LinearRegressionTrainer_0",
      "LinearRegressionTrainer_0.zip",
      "SGDRegressorTrainer_0",
      "SGDRegressorTrainer_0.json",
      "SGDRegressorTrainer_0.zip",
      "SGDRegressorTrainer_10",
      "SGDRegressorTrainer_10.json",
      "SGDRegressorTrainer_10.zip",
    ]);
    // The sibling is the reference's component map; the folder's weight.json names its model for Kepler.
    const sibling = JSON.parse(await readFile(join(group, "SGDRegressorTrainer_0.json"), "utf8"));
    expect(Object.keys(sibling)).toEqual(["package", "core", "uncore", "dram"]);
    const folder = await readFile(join(group, "SGDRegressorTrainer_0/weight.json"), "utf8");
    expect(folder).toBe(JSON.stringify({ model_name: "SGDRegressorTrainer_0", ...sibling }));
  });
});

describe("WatchModels", () => {
  it("sends WATCHING first, then each publish", async () => {
    const controller = new AbortController();
    const events = registry.client.watchModels(
      { pipelineName: "std", energySource: "", outputType: 0 },
      { signal: controller.signal },
    );
    const stream = events[Symbol.asyncIterator]();
    const first = await stream.next();
    expect(first.value?.kind).toBe(ModelEventKind.MODEL_EVENT_KIND_WATCHING);
    const archive = buildTestArchive(model("LinearRegressionTrainer", 0, 11));
    expect((await publishTestArchive(registry, archive)).replaced).toBe(true);
    const next = await stream.next();
    expect(next.value?.kind).toBe(ModelEventKind.MODEL_EVENT_KIND_PUBLISHED);
    expect(next.value?.metadata?.modelName).toBe("LinearRegressionTrainer_0");
    expect(next.value?.metadata?.maeWatts).toBe(11);
    expect(next.value?.sequence).toBe((first.value?.sequence ?? 0) + 1);
    controller.abort();
  });
});
