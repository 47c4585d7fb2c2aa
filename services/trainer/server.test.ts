// The trainer gRPC service on 127.0.0.1:0 with a real local model folder.
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClientError, Status } from "nice-grpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { goldenTable, goldenTestTimestamps } from "../../test/fixtures/trainer/fixtures.js";
import {
  TrainOptions,
  type TrainRequest,
  type TrainResponse,
  TrainOutcome,
} from "../generated/kepler/model/v1/trainer_service.js";
import { OutputType } from "../generated/kepler/model/v1/types.js";
import type { ServerHandle } from "../kit/transport/grpc-server.js";
import { silentLogger } from "../kit/observe/logger.js";
import { tableToChunks } from "../kit/transport/table-codec.js";
import { readZip } from "../models/index.js";
import { createTrainerClient } from "./client.js";
import { readTrainerConfig } from "./config.js";
import { startTrainer } from "./main.js";

let server: ServerHandle;
let modelPath: string;

beforeAll(async () => {
  modelPath = await mkdtemp(join(tmpdir(), "trainer-server-"));
  // No registry address: archives go to the local model folder (the registry path is in registry-publish.test.ts).
  server = await startTrainer(
    { ...readTrainerConfig({}), host: "127.0.0.1", port: 0, modelPath, registryAddress: "" },
    { logger: silentLogger() },
  );
});
afterAll(async () => {
  await server.close();
  await rm(modelPath, { recursive: true, force: true });
});

async function* requests(options: Partial<TrainOptions>): AsyncGenerator<TrainRequest> {
  yield { content: { $case: "options", value: TrainOptions.fromPartial(options) } };
  // 187 rows in chunks of 50: the server must reassemble four chunks.
  for (const chunk of tableToChunks(goldenTable("rapl-sysfs"), 50)) yield { content: { $case: "chunk", value: chunk } };
}

async function collect(stream: AsyncIterable<TrainResponse>): Promise<TrainResponse[]> {
  const responses: TrainResponse[] = [];
  for await (const response of stream) responses.push(response);
  return responses;
}

describe("TrainerService", () => {
  it("streams progress, results and a summary, and publishes the archives", async () => {
    const peer = createTrainerClient(server.address);
    try {
      const responses = await collect(
        peer.client.train(
          requests({
            featureGroup: "CounterOnly",
            energySource: "rapl",
            outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
            trainerNames: ["LinearRegressionTrainer", "KNeighborsRegressorTrainer"],
            testTimestampsSeconds: goldenTestTimestamps("rapl-sysfs"),
            pipelineName: "std_v0.7.11",
            machineSpec: {
              processor: "intel_xeon_e5_2686v4",
              cores: 72,
              chips: 2,
              memoryGib: 503,
              frequencyMhz: 3000,
              vendor: "",
              threadsPerCore: 0,
            },
          }),
        ),
      );
      const kinds = responses.map((r) => r.content?.$case);
      // 2 trainers x 4 components, each "fitting" then "fitted", then the two publish steps.
      const progress = responses.flatMap((r) => (r.content?.$case === "progress" ? [r.content.value] : []));
      expect(progress.filter((p) => p.stage === "train").map((p) => p.subject)).toEqual(
        ["LinearRegressionTrainer", "KNeighborsRegressorTrainer"].flatMap((t) =>
          ["package", "core", "uncore", "dram"].flatMap((c) => [`${t}/${c}`, `${t}/${c}`]),
        ),
      );
      expect(progress.filter((p) => p.stage === "publish").map((p) => p.subject)).toEqual([
        "LinearRegressionTrainer_0",
        "KNeighborsRegressorTrainer_0",
      ]);
      expect(progress.at(-1)).toMatchObject({ done: 8, total: 8 });
      expect(kinds.at(-1)).toBe("summary");
      expect(responses.at(-1)?.content?.value).toEqual({ succeededCount: 2, failedCount: 0, nodeTypes: [0], rowCount: 187 });

      const results = responses.flatMap((r) => (r.content?.$case === "result" ? [r.content.value] : []));
      expect(results.map((r) => [r.trainerName, r.outcome, r.trainRowCount, r.testRowCount, r.hasWeights])).toEqual([
        ["LinearRegressionTrainer", TrainOutcome.TRAIN_OUTCOME_SUCCEEDED, 150, 37, true],
        ["KNeighborsRegressorTrainer", TrainOutcome.TRAIN_OUTCOME_SUCCEEDED, 150, 37, false],
      ]);
      // Exact (unrounded) metrics on the wire: the golden MAE of LinearRegression on package.
      expect(results[0]?.componentMetrics[0]?.maeWatts).toBeCloseTo(7.933757409267221, 9);
      expect(results[0]?.maeWatts).toBeCloseTo(7.933757409267221, 9);
      expect(results[0]?.publishedLocation).toEqual({
        pipelineName: "std_v0.7.11",
        energySource: "rapl-sysfs",
        outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
        featureGroup: "CounterOnly",
        modelName: "LinearRegressionTrainer_0",
      });

      const group = join(modelPath, "std_v0.7.11", "rapl-sysfs", "AbsPower", "CounterOnly");
      expect((await readdir(group)).sort()).toEqual([
        "KNeighborsRegressorTrainer_0",
        "KNeighborsRegressorTrainer_0.zip",
        "LinearRegressionTrainer_0",
        "LinearRegressionTrainer_0.zip",
        "checkpoint",
      ]);
      const linearFiles = [
        "LinearRegressionTrainer_0.json",
        "core.json",
        "dram.json",
        "metadata.json",
        "package.json",
        "scaler.json",
        "uncore.json",
        "weight.json",
      ];
      expect((await readdir(join(group, "LinearRegressionTrainer_0"))).sort()).toEqual(linearFiles);
      expect(
        readZip(await readFile(join(group, "LinearRegressionTrainer_0.zip")))
          .map((e) => e.name)
          .sort(),
      ).toEqual(linearFiles);
      expect((await readdir(join(group, "checkpoint"))).sort()).toEqual(
        ["KNeighborsRegressorTrainer", "LinearRegressionTrainer"].flatMap((t) =>
          ["core", "dram", "package", "uncore"].map((c) => `${t}_${c}_0.json`),
        ),
      );
      const metadata = JSON.parse(await readFile(join(group, "LinearRegressionTrainer_0", "metadata.json"), "utf8"));
      expect(Object.keys(metadata)).toEqual([
        "model_name",
        "model_class",
        "model_file",
        "features",
        "fe_files",
        "output_type",
        "mae",
        "mape",
        "node_type",
        "machine_spec",
        "package_mae",
        "core_mae",
        "uncore_mae",
        "dram_mae",
        "package_mape",
        "core_mape",
        "uncore_mape",
        "dram_mape",
        "held_out",
        "calibration",
        "training",
        "trained_by_version",
        "format_version",
      ]);
      // Which kepler-model trained it: package.json's version (docs/trainers.md).
      expect(metadata.trained_by_version).toBe(
        JSON.parse(await readFile(new URL("../../package.json", import.meta.url), "utf8")).version,
      );
      // The golden split's 37 test rows, the served predictions' errors and residuals on them.
      expect(metadata.held_out.row_count).toBe(37);
      expect(metadata.held_out.timestamps).toHaveLength(37);
      expect(metadata.calibration.abs_residuals.package).toHaveLength(37);
      // Golden: package mae 7.9338 / mape 9.7561, dram 1.6049 / 3.5233; mape is the max, not dram's.
      expect(metadata).toMatchObject({
        model_name: "LinearRegressionTrainer_0",
        model_class: "scikit",
        model_file: "LinearRegressionTrainer_0.json",
        features: ["cache_miss", "cpu_cycles", "cpu_instructions"],
        fe_files: [],
        output_type: "AbsPower",
        mae: 7.93,
        mape: 9.76,
        node_type: 0,
        machine_spec: { processor: "intel_xeon_e5_2686v4", cores: 72, chips: 2, memory: 503, frequency: 3000 },
        package_mae: 7.93,
        dram_mae: 1.6,
        package_mape: 9.76,
        core_mape: -1,
        dram_mape: 3.52,
        format_version: 1,
      });
      const knnDir = await readdir(join(group, "KNeighborsRegressorTrainer_0"));
      expect(knnDir).not.toContain("weight.json");
    } finally {
      peer.close();
    }
  });

  it("answers INVALID_ARGUMENT for an unknown trainer and when options do not come first", async () => {
    const peer = createTrainerClient(server.address);
    try {
      const unknown = await collect(
        peer.client.train(
          requests({
            featureGroup: "CounterOnly",
            energySource: "acpi",
            outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
            trainerNames: ["Nope"],
            skipPublish: true,
          }),
        ),
      ).catch((e: unknown) => e);
      expect(unknown).toBeInstanceOf(ClientError);
      expect((unknown as ClientError).code).toBe(Status.INVALID_ARGUMENT);
      expect((unknown as ClientError).details).toMatch(
        /^trainer_names\[0\]: unknown trainer "Nope" \(known: PolynomialRegressionTrainer, /,
      );

      async function* chunkFirst(): AsyncGenerator<TrainRequest> {
        for (const chunk of tableToChunks(goldenTable("acpi"), 500)) yield { content: { $case: "chunk", value: chunk } };
      }
      const misordered = await collect(peer.client.train(chunkFirst())).catch((e: unknown) => e);
      expect((misordered as ClientError).code).toBe(Status.INVALID_ARGUMENT);
      expect((misordered as ClientError).details).toBe("requests[0].options: the first message must carry the training options");
    } finally {
      peer.close();
    }
  });

  it("lists the implemented trainers in the reference's order", async () => {
    const peer = createTrainerClient(server.address);
    try {
      const { trainers } = await peer.client.listTrainers({});
      expect(trainers.map((t) => [t.trainerName, t.modelClass, t.weightCapable])).toEqual([
        ["PolynomialRegressionTrainer", "scikit", false],
        ["GradientBoostingRegressorTrainer", "scikit", false],
        ["KNeighborsRegressorTrainer", "scikit", false],
        ["LinearRegressionTrainer", "scikit", true],
        ["SVRRegressorTrainer", "scikit", false],
        ["XgboostFitTrainer", "xgboost", false],
        ["SGDRegressorTrainer", "scikit", true],
        ["LogarithmicRegressionTrainer", "curvefit", true],
        ["LogisticRegressionTrainer", "curvefit", true],
        ["ExponentialRegressionTrainer", "curvefit", true],
      ]);
    } finally {
      peer.close();
    }
  });
});
