// Server tests: a real registry on 127.0.0.1:0 over a temporary MODEL_PATH, called with the generated client.
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { Status } from "nice-grpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModelEventKind } from "../generated/kepler/model/v1/registry_service.js";
import { NodeTypeMatchKind } from "../generated/kepler/model/v1/model.js";
import { OutputType } from "../generated/kepler/model/v1/types.js";
import { silentLogger } from "../kit/observe/logger.js";
import { createZip, readZip, zipFolderTree } from "../models/index.js";
import { createRegistryClient } from "./client.js";
import { startRegistry } from "./main.js";
import { importPipelineZip } from "../../test/support/import-pipeline-zip.js";
import { buildTestArchive, publishTestArchive, type TestModelSpec } from "../../test/support/model-archives.js";

const ABS = OutputType.OUTPUT_TYPE_ABS_POWER;
const BPF = ["bpf_cpu_time_ms", "bpf_page_cache_hit"];
const COUNTER = ["cache_miss", "cpu_cycles", "cpu_instructions"];
const FIXTURE = new URL("../../test/fixtures/registry/ec2-fixture", import.meta.url).pathname;
const linear = (intercept: number) => ({
  kind: "linear" as const,
  components: [0, 1, 2, 3].map((i) => ({ intercept: intercept + i, coefficients: [10, 1] })),
});

function model(trainerName: string, nodeType: number, maeWatts: number, extra: Partial<TestModelSpec> = {}): TestModelSpec {
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

let dir: string;
let handle: Awaited<ReturnType<typeof startRegistry>>;
let registry: ReturnType<typeof createRegistryClient>;
const published = new Map<string, Uint8Array>();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "registry-"));
  handle = await startRegistry(
    { host: "127.0.0.1", port: 0, modelPath: dir, rescanIntervalMs: 0, sourcePipelines: [] },
    { logger: silentLogger() },
  );
  registry = createRegistryClient(handle.address);
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
});

afterAll(async () => {
  registry.close();
  await handle.close();
  await rm(dir, { recursive: true, force: true });
});

const select = (request: Record<string, unknown>) =>
  registry.client.selectModel({ featureNames: BPF, outputType: ABS, energySource: "rapl-sysfs", metadataOnly: true, ...request });

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

describe("ImportPipeline (kepler-model-db layout)", () => {
  it("imports a pipeline folder: weight models served, pickled models skipped with a notice", async () => {
    const response = await importPipelineZip(registry, "ec2-fixture", await zipFolderTree(FIXTURE));
    expect(response.pipeline?.pipelineName).toBe("ec2-fixture");
    expect(response.pipeline?.energySources).toEqual(["acpi", "rapl-sysfs"]);
    expect(response.pipeline?.nodeTypeCount).toBe(6);
    expect(response.importedModelCount).toBe(3);
    expect(response.skippedModels).toEqual([
      {
        path: "rapl-sysfs/AbsPower/BPFOnly/GradientBoostingRegressorTrainer_0",
        reason: "pickled scikit-learn model without weight.json: not readable without Python",
      },
    ]);
    const acpi = await select({ energySource: "acpi", pipelineName: "ec2-fixture", weight: true, metadataOnly: false });
    expect(acpi.metadata?.modelName).toBe("SGDRegressorTrainer_0");
    expect(acpi.metadata?.machineSpec).toEqual({
      processor: "intel_xeon_platinum_8259cl",
      cores: 96,
      chips: 2,
      memoryGib: 377,
      frequencyMhz: 3500,
      vendor: "",
      threadsPerCore: 0,
    });
    expect(JSON.parse(acpi.payload?.value as string)).toEqual(
      JSON.parse(await readFile(join(FIXTURE, "acpi/AbsPower/BPFOnly/SGDRegressorTrainer_0.json"), "utf8")),
    );
    const rapl = await select({ pipelineName: "ec2-fixture", weight: true });
    expect([rapl.metadata?.modelName, rapl.metadata?.maeWatts]).toEqual(["SGDRegressorTrainer_0", 60.78]);
    await expect(importPipelineZip(registry, "ec2-fixture", await zipFolderTree(FIXTURE))).rejects.toMatchObject({
      code: Status.ALREADY_EXISTS,
      details: 'pipeline "ec2-fixture" already exists; set replace to overwrite it',
    });
  });

  it("imports a streamed pipeline zip and exports it again", async () => {
    const files: Array<{ name: string; data: Uint8Array }> = [];
    const walk = async (path: string): Promise<void> => {
      for (const entry of await readdir(path)) {
        const full = join(path, entry);
        if ((await stat(full)).isDirectory()) await walk(full);
        else files.push({ name: relative(FIXTURE, full), data: await readFile(full) });
      }
    };
    await walk(FIXTURE);
    const zip = createZip(files);
    const response = await registry.client.importPipeline(
      (async function* () {
        yield { content: { $case: "header" as const, value: { pipelineName: "streamed", serverPath: "", replace: false } } };
        yield { content: { $case: "archiveChunk" as const, value: Buffer.from(zip) } };
      })(),
    );
    expect([response.importedModelCount, response.skippedModels.length]).toEqual([3, 1]);
    const chunks: Buffer[] = [];
    for await (const message of registry.client.exportPipeline({ pipelineName: "streamed" })) chunks.push(message.archiveChunk);
    const names = readZip(Buffer.concat(chunks))
      .map((e) => e.name)
      .sort();
    expect(names).toEqual([
      "acpi/AbsPower/BPFOnly/SGDRegressorTrainer_0.json",
      "acpi/AbsPower/BPFOnly/SGDRegressorTrainer_0.zip",
      "acpi_AbsPower_model_metadata.csv",
      "metadata.json",
      "node_type_index.json",
      "rapl-sysfs/AbsPower/BPFOnly/ExponentialRegressionTrainer_0.json",
      "rapl-sysfs/AbsPower/BPFOnly/ExponentialRegressionTrainer_0.zip",
      "rapl-sysfs/AbsPower/BPFOnly/SGDRegressorTrainer_0.json",
      "rapl-sysfs/AbsPower/BPFOnly/SGDRegressorTrainer_0.zip",
      "rapl-sysfs_AbsPower_model_metadata.csv",
    ]);
  });

  it("exports a pipeline that never had an index or metadata with both, so the reference server can serve it", async () => {
    await publishTestArchive(
      registry,
      buildTestArchive(model("SGDRegressorTrainer", 0, 9, { pipelineName: "bare", withWeights: true })),
    );
    const chunks: Buffer[] = [];
    for await (const message of registry.client.exportPipeline({ pipelineName: "bare" })) chunks.push(message.archiveChunk);
    const entries = new Map(readZip(Buffer.concat(chunks)).map((e) => [e.name, new TextDecoder().decode(e.data)]));
    expect([...entries.keys()].sort()).toEqual([
      "metadata.json",
      "node_type_index.json",
      "rapl-sysfs/AbsPower/BPFOnly/SGDRegressorTrainer_0.json",
      "rapl-sysfs/AbsPower/BPFOnly/SGDRegressorTrainer_0.zip",
      "rapl-sysfs_AbsPower_model_metadata.csv",
    ]);
    expect(JSON.parse(entries.get("node_type_index.json") as string)).toEqual({});
    const metadata = JSON.parse(entries.get("metadata.json") as string);
    expect([metadata.name, metadata.abs_trainers, metadata.dyn_trainers]).toEqual(["bare", ["SGDRegressorTrainer"], []]);
    // The sibling keeps the reference's shape: no model_name (Kepler derives it from the URL).
    expect(Object.keys(JSON.parse(entries.get("rapl-sysfs/AbsPower/BPFOnly/SGDRegressorTrainer_0.json") as string))).toEqual([
      "package",
      "core",
      "uncore",
      "dram",
    ]);
  });

  it("names the model in every served .../weight.json, imported curve fits included (Kepler panics without)", async () => {
    const group = join(dir, "ec2-fixture/rapl-sysfs/AbsPower/BPFOnly");
    for (const name of ["ExponentialRegressionTrainer_0", "SGDRegressorTrainer_0"]) {
      const served = JSON.parse(await readFile(join(group, name, "weight.json"), "utf8"));
      const sibling = JSON.parse(await readFile(join(FIXTURE, "rapl-sysfs/AbsPower/BPFOnly", `${name}.json`), "utf8"));
      expect(served).toEqual({ model_name: name, ...sibling });
      expect(Object.keys(served)[0]).toBe("model_name");
    }
  });

  it("matches machine specs against an imported index (§6.5 examples)", async () => {
    const spec = (s: Record<string, unknown>) => ({
      processor: "",
      cores: 0,
      chips: 0,
      memoryGib: 0,
      frequencyMhz: 0,
      vendor: "",
      threadsPerCore: 0,
      ...s,
    });
    const cores = await registry.client.matchMachineSpec({
      pipelineName: "ec2-fixture",
      spec: spec({ cores: 96 }),
      looseSearch: true,
    });
    expect(cores.match).toMatchObject({
      nodeType: 0,
      uncertainty: 0.75,
      looseness: 0,
      kind: NodeTypeMatchKind.NODE_TYPE_MATCH_KIND_COVER,
    });
    const loose = await registry.client.matchMachineSpec({
      pipelineName: "ec2-fixture",
      spec: spec({ processor: "intel_xeon_platinum_8259", cores: 96, chips: 2, memoryGib: 377, frequencyMhz: 3500 }),
      looseSearch: true,
    });
    expect(loose.match?.nodeType).toBe(0);
    expect(loose.match?.looseness.toFixed(3)).toBe("0.331");
    const types = await registry.client.listNodeTypes({ pipelineName: "ec2-fixture" });
    expect(types.nodeTypes.map((t) => [t.nodeType, t.spec?.cores, t.members[0]])[5]).toEqual([
      5,
      96,
      "m7i.metal-24xl-ami-0e4d0bb9670ea8db0",
    ]);
  });
});
