// Server tests: a real registry and estimator on 127.0.0.1:0; models imported from the hand-built
// kepler-model-db fixture pipeline or published in our format; expected watts computed here by hand.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Status } from "nice-grpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OutputType } from "../generated/kepler/model/v1/types.js";
import { silentLogger } from "../kit/observe/logger.js";
import { discoverMachineSpec } from "../node-types/index.js";
import { createRegistryClient } from "../registry/client.js";
import { startRegistry } from "../registry/main.js";
import { zipFolderTree } from "../models/index.js";
import { importPipelineZip } from "../../test/support/import-pipeline-zip.js";
import { buildTestArchive, publishTestArchive } from "../../test/support/model-archives.js";
import { BPF, KEPLER_METRICS, keplerRow, linearModel, powersOf, request, spec } from "../../test/support/estimate-requests.js";
import { createEstimatorClient } from "./client.js";
import { startEstimator } from "./main.js";

const FIXTURE = new URL("../../test/fixtures/registry/ec2-fixture", import.meta.url).pathname;
let dir: string;
let registryHandle: Awaited<ReturnType<typeof startRegistry>>;
let estimatorHandle: Awaited<ReturnType<typeof startEstimator>>;
let registry: ReturnType<typeof createRegistryClient>;
let estimator: ReturnType<typeof createEstimatorClient>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "estimator-"));
  registryHandle = await startRegistry(
    { host: "127.0.0.1", port: 0, modelPath: dir, rescanIntervalMs: 0, sourcePipelines: [] },
    { logger: silentLogger() },
  );
  registry = createRegistryClient(registryHandle.address);
  const imported = await importPipelineZip(registry, "ec2-fixture", await zipFolderTree(FIXTURE));
  expect(imported.importedModelCount).toBe(3);
  await publishTestArchive(registry, buildTestArchive(linearModel("LinearRegressionTrainer", 7, 30, "std")));
  await publishTestArchive(
    registry,
    buildTestArchive({
      ...linearModel("KNeighborsRegressorTrainer", 9, 0, "std"),
      model: {
        kind: "knn",
        k: 1,
        fitXColumns: [
          [0, 0.5, 1],
          [0, 0, 1],
        ],
        fitY: [
          [50, 100, 150],
          [0, 0, 0],
          [5, 6, 7],
          [10, 20, 30],
        ],
      },
    }),
  );
  estimatorHandle = await startEstimator(
    {
      host: "127.0.0.1",
      port: 0,
      registryAddress: registryHandle.address,
      machineSpecFile: "",
      estimatorSocket: "",
      registryDeadlineMs: 5000,
    },
    { logger: silentLogger() },
  );
  estimator = createEstimatorClient(estimatorHandle.address);
});

afterAll(async () => {
  estimator.close();
  registry.close();
  await estimatorHandle.close();
  await registryHandle.close();
  await rm(dir, { recursive: true, force: true });
});

describe("Estimate with imported kepler-model-db weight.json models", () => {
  it("acpi: equals Kepler's linear formula; a row of zeros gives idle power; core ratio = cores / model cores", async () => {
    const response = await estimator.client.estimate(
      request(KEPLER_METRICS, [keplerRow(5210.33, 420), keplerRow(0, 0).map(() => 0)], {
        energySource: "acpi",
        pipelineName: "ec2-fixture",
      }),
    );
    // kepler data/model_weight/acpi_AbsPowerModel.json: bias + weight * x / scale (page-cache weight 0 is skipped).
    const busy = 63.732101547596734 + 60.735455390707436 * (5210.33 / 3991.690709751875);
    expect(powersOf(response)).toEqual({ platform: [busy, 63.732101547596734] });
    expect([response.modelName, response.modelMaeWatts, response.featureGroup, response.rowCount, response.coreRatio]).toEqual([
      "SGDRegressorTrainer_0",
      9.7,
      "BPFOnly",
      2,
      48 / 96,
    ]);
    expect(response.modelLocation).toMatchObject({
      pipelineName: "ec2-fixture",
      energySource: "acpi",
      modelName: "SGDRegressorTrainer_0",
    });
    expect(response.modelMachineSpec?.cores).toBe(96);
  });

  it("rapl (Kepler's intel_rapl alias): package and dram from the SGD weights, core and uncore 0", async () => {
    const x = 5210.33;
    const response = await estimator.client.estimate(
      request(KEPLER_METRICS, [keplerRow(x, 420)], { energySource: "intel_rapl", pipelineName: "ec2-fixture" }),
    );
    expect(powersOf(response)).toEqual({
      package: [143.81206324506658 + 305.148172889668 * (x / 95877.00000000001)],
      core: [0],
      uncore: [0],
      dram: [18.616285480502686 + 8.434209551249596 * (x / 95877.00000000001)],
    });
    expect(response.modelName).toBe("SGDRegressorTrainer_0");
    expect(response.selection?.reason).toContain("lowest held-out MAE (60.78 W)");
  });

  it("curve-fit weights are evaluated on the group's main feature", async () => {
    const x = 5210.33;
    const response = await estimator.client.estimate(
      request(KEPLER_METRICS, [keplerRow(x, 2)], { pipelineName: "ec2-fixture", trainerName: "ExponentialRegressionTrainer" }),
    );
    const powers = powersOf(response);
    const xs = x / 95877.00000000001;
    expect(powers.package?.[0]).toBeCloseTo(1800828.6572112294 * Math.exp(0.00017356410721908495 * xs) - 1800685.0481741317, 6);
    expect(powers.dram?.[0]).toBeCloseTo(12.5 * Math.exp(0.5 * 2) + 10, 9);
    expect([powers.core, powers.uncore]).toEqual([[0], [0]]);
  });
});

describe("Estimate with our JSON models", () => {
  it("linear: intercept + sum coefficient * x / scale, negative predictions clamped to 0", async () => {
    const response = await estimator.client.estimate(
      request(
        BPF,
        [
          [2000, 10],
          [0, 0],
        ],
        { pipelineName: "std", trainerName: "LinearRegressionTrainer", machineSpec: spec(0) },
      ),
    );
    const p = powersOf(response);
    const at = (intercept: number) => intercept + 80 * (2000 / 4000) + 2 * (10 / 50);
    expect(p.package?.[0]).toBeCloseTo(at(30), 12);
    expect(p.core?.[0]).toBeCloseTo(at(0), 12);
    expect(p.uncore?.[0]).toBeCloseTo(at(-5), 12);
    expect([p.package?.[1], p.core?.[1], p.uncore?.[1], p.dram?.[1]]).toEqual([30, 0, 0, 10]);
    // No machine spec in the request: the estimator's own, discovered from this host's /proc and /sys.
    expect(response.coreRatio).toBe((await discoverMachineSpec()).cores / 96);
  });

  it("k-nearest neighbours (k = 1): the nearest training row's power", async () => {
    const response = await estimator.client.estimate(
      request(
        ["bpf_page_cache_hit", "bpf_cpu_time_ms"],
        [
          [50, 4000],
          [0, 2100],
        ],
        { pipelineName: "std", trainerName: "KNeighborsRegressorTrainer" },
      ),
    );
    expect(powersOf(response)).toEqual({ package: [150, 100], core: [0, 0], uncore: [7, 6], dram: [30, 20] });
  });

  it("names the given features and what the closest model needs when nothing covers them", async () => {
    await expect(
      estimator.client.estimate(request(["cpu_cycles", "bpf_cpu_time_ms"], [[1, 2]], { pipelineName: "std" })),
    ).rejects.toMatchObject({
      code: Status.FAILED_PRECONDITION,
      details:
        'no AbsPower model for rapl-sysfs in pipeline "std" covers the given features [cpu_cycles, bpf_cpu_time_ms, cpu_architecture]; the closest, LinearRegressionTrainer_0 (BPFOnly), needs [bpf_cpu_time_ms, bpf_page_cache_hit] (missing [bpf_page_cache_hit])',
    });
  });

  it("rejects malformed rows naming the field", async () => {
    await expect(estimator.client.estimate(request(BPF, [[1, 2]], { rowCount: 2 }))).rejects.toMatchObject({
      code: Status.INVALID_ARGUMENT,
      details: "values: expected row_count * len(feature_names) = 2 * 2 = 4 values, got 2",
    });
    await expect(
      estimator.client.estimate(
        request(
          BPF,
          [
            [1, 2],
            [3, Number.NaN],
          ],
          { pipelineName: "std" },
        ),
      ),
    ).rejects.toMatchObject({
      code: Status.INVALID_ARGUMENT,
      details: "values[1][1]: bpf_page_cache_hit is NaN; values must be finite",
    });
    await expect(
      estimator.client.estimate(request(BPF, [[1, 2]], { outputType: OutputType.OUTPUT_TYPE_UNSPECIFIED })),
    ).rejects.toMatchObject({
      code: Status.INVALID_ARGUMENT,
      details: "output_type: required: OUTPUT_TYPE_ABS_POWER or OUTPUT_TYPE_DYN_POWER",
    });
  });

  it("accepts value_list for hand-written clients", async () => {
    const response = await estimator.client.estimate({
      ...request(BPF, [[0, 0]], { pipelineName: "std", trainerName: "LinearRegressionTrainer" }),
      values: Buffer.alloc(0),
      valueList: [0, 0],
    });
    expect(powersOf(response).package).toEqual([30]);
  });
});

describe("EstimateStream", () => {
  it("answers every request in order, errors as items, and keeps going", async () => {
    const items = [
      { requestId: "a", estimate: request(BPF, [[0, 0]], { pipelineName: "std", trainerName: "LinearRegressionTrainer" }) },
      { requestId: "b", estimate: request(BPF, [[0, 0]], { rowCount: 3 }) },
      { requestId: "c", estimate: request(BPF, [[0, 0]], { energySource: "acpi", pipelineName: "ec2-fixture" }) },
    ];
    const responses = [];
    for await (const response of estimator.client.estimateStream(
      (async function* () {
        yield* items;
      })(),
    ))
      responses.push(response);
    expect(responses.map((r) => [r.requestId, r.result?.$case])).toEqual([
      ["a", "estimate"],
      ["b", "error"],
      ["c", "estimate"],
    ]);
    expect(responses[1]?.result).toEqual({
      $case: "error",
      value: {
        code: Status.INVALID_ARGUMENT,
        message: "estimate.values: expected row_count * len(feature_names) = 3 * 2 = 6 values, got 2",
      },
    });
    const c = responses[2]?.result;
    expect(c?.$case === "estimate" && c.value.componentPowers[0]?.powerWatts).toEqual([63.732101547596734]);
  });
});

describe("hot reload", () => {
  it("switches to a better published model while calls stream, without failing any call", async () => {
    await publishTestArchive(registry, buildTestArchive(linearModel("LinearRegressionTrainer", 20, 100, "hot")));
    const call = () => estimator.client.estimate(request(BPF, [[0, 0]], { pipelineName: "hot" }));
    const seen: Array<[string, number]> = [];
    let failures = 0;
    let published = false;
    let switchedAt = -1;
    const worker = async () => {
      for (let i = 0; i < 4000 && (switchedAt < 0 || seen.length < switchedAt + 40); i++) {
        try {
          const response = await call();
          seen.push([response.modelName, powersOf(response).package?.[0] ?? -1]);
          if (response.modelName === "SGDRegressorTrainer_0" && switchedAt < 0) switchedAt = seen.length;
        } catch {
          failures++;
        }
        if (!published && seen.length >= 20) {
          published = true;
          await publishTestArchive(
            registry,
            buildTestArchive(linearModel("SGDRegressorTrainer", 5, 200, "hot", { withWeights: true })),
          );
        }
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    expect(failures).toBe(0);
    expect(switchedAt).toBeGreaterThan(20);
    expect(seen.slice(0, 20).every(([name, power]) => name === "LinearRegressionTrainer_0" && power === 100)).toBe(true);
    expect(seen.slice(switchedAt + 4).every(([name, power]) => name === "SGDRegressorTrainer_0" && power === 200)).toBe(true);
  });
});
