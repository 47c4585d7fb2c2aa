// Degenerate training input: each case gets a clear error or a documented handling (docs/trainers.md).
import { describe, expect, it } from "vitest";
import { CLASSIC_TRAINERS } from "../../../test/fixtures/trainer/fixtures.js";
import { createDataTable } from "../../domain/data-table.js";
import { InvalidInputError } from "../../domain/errors.js";
import { parseWeightJson } from "../../models/index.js";
import { type TrainModelsRequest, trainModels } from "./train-models.js";

const ALL = [...CLASSIC_TRAINERS];

function request(columns: Array<[string, number[]]>, overrides: Partial<TrainModelsRequest> = {}): TrainModelsRequest {
  const n = columns[0]?.[1].length ?? 0;
  return {
    table: createDataTable(
      Array.from({ length: n }, (_, i) => 1000 + 3 * i),
      columns,
    ),
    energySource: "acpi",
    featureGroup: "CounterOnly",
    outputType: "AbsPower",
    trainerNames: ALL,
    skipPublish: true,
    ...overrides,
  };
}

const ramp = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe("degenerate training input", () => {
  it("trains with an all-zero and a constant feature: scale 1.0 and the constant's own value, exact linear fit", async () => {
    // platform = 10 + 2 * cpu_instructions exactly; cache_miss is always 0, cpu_cycles always 7.
    const x = ramp(20);
    const { results } = await trainModels(
      request([
        ["cache_miss", x.map(() => 0)],
        ["cpu_cycles", x.map(() => 7)],
        ["cpu_instructions", x],
        ["platform_power", x.map((v) => 10 + 2 * v)],
      ]),
    );
    expect(results.map((r) => [r.trainerName, r.outcome])).toEqual(ALL.map((t) => [t, "succeeded"]));
    const linear = results[0];
    expect(linear?.maeWatts).toBeLessThan(1e-9);
    expect(results[1]?.maeWatts).toBeLessThan(1e-9); // polynomial
    const weights = parseWeightJson(new TextDecoder().decode(linear?.archive?.files.find((f) => f.name === "weight.json")?.data));
    const all = weights.platform?.All_Weights;
    // MaxAbs: an all-zero column gets scale 1 (sklearn's _handle_zeros_in_scale), the constant keeps 7.
    expect(Object.values(all?.Numerical_Variables ?? {}).map((v) => v.scale)).toEqual([1, 7, 20]);
    // On scaled features x / 20 the slope is 2 * 20 = 40; constant columns get weight 0.
    expect(all?.Numerical_Variables.cache_miss?.weight).toBe(0);
    expect(all?.Numerical_Variables.cpu_cycles?.weight).toBe(0);
    expect(all?.Numerical_Variables.cpu_instructions?.weight).toBeCloseTo(40, 9);
    expect(all?.Bias_Weight).toBeCloseTo(10, 9);
  });

  it("trains three rows where it can and names why the others cannot", async () => {
    // All three features equal x = 1, 2, 3 (scaled 1/3, 2/3, 1); platform = 100 + 10x. Test row: x = 3.
    const x = [1, 2, 3];
    const { results } = await trainModels(
      request(
        [
          ["cache_miss", x],
          ["cpu_cycles", x],
          ["cpu_instructions", x],
          ["platform_power", x.map((v) => 100 + 10 * v)],
        ],
        { testTimestampsSeconds: [1006] },
      ),
    );
    expect(results.map((r) => [r.trainerName, r.outcome, r.failureReason ?? "", r.trainRowCount, r.testRowCount])).toEqual([
      ["LinearRegressionTrainer", "succeeded", "", 2, 1],
      ["PolynomialRegressionTrainer", "succeeded", "", 2, 1],
      ["KNeighborsRegressorTrainer", "failed", "platform: needs at least 6 training rows for 6 neighbours, got 2", 2, 1],
      ["SGDRegressorTrainer", "succeeded", "", 2, 1],
      ["LogarithmicRegressionTrainer", "failed", "platform: needs at least 3 training rows for 3 parameters, got 2", 2, 1],
      ["ExponentialRegressionTrainer", "failed", "platform: needs at least 3 training rows for 3 parameters, got 2", 2, 1],
      ["LogisticRegressionTrainer", "failed", "platform: needs at least 4 training rows for 4 parameters, got 2", 2, 1],
    ]);
    // Any non-negative split of the slope over the identical columns predicts 100 + 10 * 3.
    expect(results[0]?.components[0]?.testPredictions[0]).toBeCloseTo(130, 9);
    expect(results[0]?.archive).toBeDefined();
    expect(results[2]?.archive).toBeUndefined();
  });

  it("draws three rows as 2 train + 1 test with a seed", async () => {
    const x = [1, 2, 3];
    const { results } = await trainModels(
      request([
        ["cache_miss", x],
        ["cpu_cycles", x],
        ["cpu_instructions", x],
        ["platform_power", x],
      ]),
    );
    expect([results[0]?.trainRowCount, results[0]?.testRowCount]).toEqual([2, 1]);
  });

  it("refuses a single row: no split is possible", async () => {
    await expect(
      trainModels(
        request([
          ["cache_miss", [1]],
          ["cpu_cycles", [1]],
          ["cpu_instructions", [1]],
          ["platform_power", [1]],
        ]),
      ),
    ).rejects.toThrow(new InvalidInputError("table", "node type 0 has 1 row; a train/test split needs at least 2"));
  });

  it("refuses NaN, naming the column", async () => {
    const x = ramp(10);
    const columns: Array<[string, number[]]> = [
      ["cache_miss", x],
      ["cpu_cycles", x.map((v) => (v === 4 ? Number.NaN : v))],
      ["cpu_instructions", x],
      ["platform_power", x],
    ];
    await expect(trainModels(request(columns))).rejects.toThrow(
      new InvalidInputError(
        "table.values",
        "column cpu_cycles has 1 NaN or infinite value(s) in 10 rows; drop or fill those rows before training",
      ),
    );
  });

  it("refuses a missing feature or label column", async () => {
    const x = ramp(10);
    await expect(
      trainModels(
        request([
          ["cache_miss", x],
          ["cpu_cycles", x],
          ["platform_power", x],
        ]),
      ),
    ).rejects.toThrow(
      new InvalidInputError(
        "table.column_names",
        "missing feature column cpu_instructions (have: cache_miss, cpu_cycles, platform_power)",
      ),
    );
    await expect(
      trainModels(
        request(
          [
            ["cache_miss", x],
            ["cpu_cycles", x],
            ["cpu_instructions", x],
          ],
          { energySource: "rapl" },
        ),
      ),
    ).rejects.toThrow(
      new InvalidInputError(
        "table.column_names",
        "missing power label column package_power (have: cache_miss, cpu_cycles, cpu_instructions)",
      ),
    );
  });

  it("refuses unknown trainers, listing the known ones", async () => {
    const x = ramp(10);
    const columns: Array<[string, number[]]> = [
      ["cache_miss", x],
      ["cpu_cycles", x],
      ["cpu_instructions", x],
      ["platform_power", x],
    ];
    const known =
      "PolynomialRegressionTrainer, GradientBoostingRegressorTrainer, KNeighborsRegressorTrainer, LinearRegressionTrainer, SVRRegressorTrainer, XgboostFitTrainer, SGDRegressorTrainer, LogarithmicRegressionTrainer, LogisticRegressionTrainer, ExponentialRegressionTrainer";
    await expect(trainModels(request(columns, { trainerNames: ["SGDRegressor"] }))).rejects.toThrow(
      new InvalidInputError("trainer_names[0]", `unknown trainer "SGDRegressor" (known: ${known})`),
    );
  });

  it("refuses test timestamps that are not rows, or that leave no training row", async () => {
    const x = ramp(4);
    const columns: Array<[string, number[]]> = [
      ["cache_miss", x],
      ["cpu_cycles", x],
      ["cpu_instructions", x],
      ["platform_power", x],
    ];
    await expect(trainModels(request(columns, { testTimestampsSeconds: [1003, 1004] }))).rejects.toThrow(
      new InvalidInputError("test_timestamps_seconds", "timestamp 1004 is not a row of the table"),
    );
    await expect(trainModels(request(columns, { testTimestampsSeconds: [1000, 1003, 1006, 1009] }))).rejects.toThrow(
      new InvalidInputError(
        "test_timestamps_seconds",
        "every row of node type 0 is a test row; at least one training row is needed",
      ),
    );
  });
});

describe("seeded split", () => {
  const columns = (n: number): Array<[string, number[]]> => {
    const x = ramp(n);
    return [
      ["cache_miss", x.map((v) => v % 7)],
      ["cpu_cycles", x],
      ["cpu_instructions", x.map((v) => v * v)],
      ["platform_power", x.map((v) => 50 + v)],
    ];
  };

  it("is reproducible: the same seed gives the same test rows and models", async () => {
    const options = { trainerNames: ["SGDRegressorTrainer"], seed: 7 };
    const [a, b, c] = await Promise.all([
      trainModels(request(columns(40), options)),
      trainModels(request(columns(40), options)),
      trainModels(request(columns(40), { ...options, seed: 8 })),
    ]);
    expect(Array.from(a.results[0]?.components[0]?.testTimestamps ?? [])).toEqual(
      Array.from(b.results[0]?.components[0]?.testTimestamps ?? []),
    );
    expect(a.results[0]?.maeWatts).toBe(b.results[0]?.maeWatts);
    expect(Array.from(a.results[0]?.components[0]?.testTimestamps ?? [])).not.toEqual(
      Array.from(c.results[0]?.components[0]?.testTimestamps ?? []),
    );
  });

  it("holds out ceil(0.1 * n) rows, as sklearn's train_test_split (10 -> 1, 11 -> 2, 187 -> 19)", async () => {
    const counts = await Promise.all(
      [10, 11, 187].map(
        async (n) =>
          (await trainModels(request(columns(n), { trainerNames: ["LinearRegressionTrainer"] }))).results[0]?.testRowCount,
      ),
    );
    // sklearn 1.2: _validate_shuffle_split(n, 0.1, None)[1] gives 1, 2 and 19.
    expect(counts).toEqual([1, 2, 19]);
  });

  it("draws the same rows as sklearn's train_test_split(test_size=0.1, shuffle=True, random_state=seed)", async () => {
    // /usr/bin/python3, sklearn 1.2.1: train_test_split(np.arange(187), test_size=0.1, shuffle=True, random_state=42)[1]
    const sklearnTest = [185, 78, 55, 137, 161, 15, 75, 154, 122, 175, 158, 42, 165, 30, 51, 16, 166, 177, 85];
    const x = ramp(187);
    const table = createDataTable(
      x.map((v) => v - 1),
      [
        ["cache_miss", x],
        ["cpu_cycles", x],
        ["cpu_instructions", x],
        ["platform_power", x],
      ],
    );
    const { results } = await trainModels({
      table,
      energySource: "acpi",
      featureGroup: "CounterOnly",
      outputType: "AbsPower",
      trainerNames: ["LinearRegressionTrainer"],
      seed: 42,
      skipPublish: true,
    });
    expect(Array.from(results[0]?.components[0]?.testTimestamps ?? [])).toEqual(sklearnTest);
  });
});

describe("cancellation", () => {
  it("stops before the next trainer once the signal is aborted, publishing nothing", async () => {
    const x = ramp(20);
    const published: string[] = [];
    const controller = new AbortController();
    const run = trainModels(
      request(
        [
          ["cache_miss", x],
          ["cpu_cycles", x],
          ["cpu_instructions", x],
          ["platform_power", x],
        ],
        {
          skipPublish: false,
          pipelineName: "p",
        },
      ),
      {
        publishModel: async (archive) => {
          published.push(archive.location.modelName);
        },
        // The first trainer finishes, then the client goes away.
        onResult: () => controller.abort(),
        signal: controller.signal,
      },
    );
    await expect(run).rejects.toThrow("This operation was aborted");
    expect(published).toEqual(["LinearRegressionTrainer_0"]);
  });
});
