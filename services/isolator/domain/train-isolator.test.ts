// The trainer isolator on the recorded coremark data (acpi, CounterOnly) with real linear AbsPower models
// (wasm-core predictLinear), checked against hand-computed labels: max(0, node power - background).
import { describe, expect, it } from "vitest";
import { readGoldenCsv } from "../../../test/support/extractor-fixtures.js";
import { recordedResponseText } from "../../../test/support/extractor-fixtures.js";
import { containerExtract } from "../../../test/support/container-extract.js";
import { predictLinear } from "../../../wasm-core/src/index.js";
import { type DataTable, getColumn } from "../../domain/data-table.js";
import type { FeatureGroupName } from "../../domain/feature-groups.js";
import { parsePrometheusResponse } from "../../domain/prometheus-response.js";
import { CORRELATION_THRESHOLD, isBetterModel } from "./abs-model-choice.js";
import { backgroundSelector } from "./background-hints.js";
import type { BackgroundModelSource, BackgroundPowerModel } from "./background-models.js";
import { containerNameOf } from "./container-split.js";
import { type IsolateProgress, isolate } from "./isolate.js";

const coremark = parsePrometheusResponse(recordedResponseText("coremark"));
const containers = containerExtract(coremark, "acpi").table;
const FEATURES = ["cache_miss", "cpu_cycles", "cpu_instructions"];
const nodePower = new Map(
  readGoldenCsv("extract_abs_acpi_CounterOnly.csv").rows.map((fields) => [Number(fields[0]), Number(fields[4])] as const),
);

/** platform = intercept + cpuCyclesWatts * cpu_cycles: a real linear model evaluated by wasm-core. */
function linearModel(
  modelName: string,
  maeWatts: number,
  intercept: number,
  cpuCyclesWatts = 0,
  featureGroup: FeatureGroupName = "CounterOnly",
): BackgroundPowerModel {
  return {
    modelName,
    featureGroup,
    features: FEATURES,
    maeWatts,
    predict: async (rows: DataTable) => {
      const values = new Float64Array(rows.rowCount * FEATURES.length);
      FEATURES.forEach((feature, k) => {
        values.set(getColumn(rows, feature), k * rows.rowCount);
      });
      const watts = predictLinear(
        { coefficients: Float64Array.of(0, cpuCyclesWatts, 0), intercept },
        { rows: rows.rowCount, cols: 3, values },
      );
      return new Map([["platform", watts]]);
    },
  };
}

function sourceOf(models: BackgroundPowerModel[], seen: unknown[] = []): BackgroundModelSource {
  return {
    loadAbsPowerModels: async (request) => {
      seen.push(request);
      return { models, notices: [] };
    },
  };
}

/** Per timestamp, the sum of cpu_cycles over the containers `pick` selects (computed row by row here). */
function cyclesBy(pick: (name: string) => boolean): Map<number, number> {
  const sums = new Map<number, number>();
  const cycles = getColumn(containers, "cpu_cycles");
  containers.rowIds!.forEach((id, row) => {
    if (!pick(containerNameOf(id))) return;
    const timestamp = containers.timestamps[row]!;
    sums.set(timestamp, (sums.get(timestamp) ?? 0) + cycles[row]!);
  });
  return sums;
}

function expectLabels(table: DataTable, background: (timestamp: number) => number): void {
  const labels = getColumn(table, "platform_power");
  Array.from(table.timestamps).forEach((timestamp, row) => {
    const expected = Math.max(0, nodePower.get(timestamp)! - background(timestamp));
    expect(Math.abs(labels[row]! - expected)).toBeLessThan(1e-9 * nodePower.get(timestamp)!);
  });
  expect(Math.min(...labels)).toBeGreaterThanOrEqual(0);
}

describe("trainer isolator", () => {
  it("with target hints: every other container is background; a constant 150 W background is removed", async () => {
    const seen: unknown[] = [];
    const progress: IsolateProgress[] = [];
    const { table, summary } = await isolate(
      containers,
      { isolator: "trainer", energySource: "acpi", targetHints: ["coremark"], absPipelineName: "ec2" },
      {
        backgroundModels: sourceOf([linearModel("LinearRegressionTrainer_0", 5, 150)], seen),
        onProgress: (event) => progress.push(event),
      },
    );
    expect(seen).toEqual([{ pipelineName: "ec2", energySource: "acpi", featureGroups: ["CounterOnly"] }]);
    const coremarkIds = new Set(containers.rowIds!.filter((id) => containerNameOf(id) === "coremark"));
    expect(summary.targetContainerCount).toBe(coremarkIds.size);
    expect(summary.backgroundContainerNames).not.toContain("coremark");
    expect(summary.backgroundContainerNames.length).toBe(18);
    expect(summary.absModel).toMatchObject({ modelName: "LinearRegressionTrainer_0", featureGroup: "CounterOnly", maeWatts: 5 });
    expect(summary.absModel!.maxCorrelation).toBeGreaterThanOrEqual(CORRELATION_THRESHOLD);
    expect(summary.backgrounds).toEqual([{ labelColumn: "platform_power", watts: 0 }]);
    expect(progress).toEqual([
      {
        stage: "isolate",
        subject: "LinearRegressionTrainer_0",
        done: 0,
        total: 1,
        message: "predicting background power with LinearRegressionTrainer_0",
      },
    ]);
    // Rows: the timestamps where a coremark container ran; features: coremark's only.
    const coremarkCycles = cyclesBy((name) => name === "coremark");
    expect(table.rowCount).toBe(coremarkCycles.size);
    const cycles = getColumn(table, "cpu_cycles");
    Array.from(table.timestamps).forEach((timestamp, row) => {
      expect(cycles[row]).toBe(coremarkCycles.get(timestamp));
    });
    expectLabels(table, () => 150);
  });

  it("predicts background from the background containers' summed features, aligned on the target rows", async () => {
    // 100 W + 1e-8 W per background cpu cycle per second.
    const { table } = await isolate(
      containers,
      { isolator: "trainer", energySource: "acpi", targetHints: ["coremark"], absPipelineName: "ec2" },
      { backgroundModels: sourceOf([linearModel("LinearRegressionTrainer_0", 5, 100, 1e-8)]) },
    );
    const backgroundCycles = cyclesBy((name) => name !== "coremark");
    expectLabels(table, (timestamp) => 100 + 1e-8 * (backgroundCycles.get(timestamp) ?? 0));
  });

  it("with background hints only, the hinted containers are the background (the reference inverted this)", async () => {
    const { summary } = await isolate(
      containers,
      { isolator: "trainer", energySource: "acpi", backgroundHints: ["kube-", "etcd"], absPipelineName: "ec2" },
      { backgroundModels: sourceOf([linearModel("LinearRegressionTrainer_0", 5, 150)]) },
    );
    expect(summary.backgroundContainerNames).toEqual([
      "etcd",
      "kube-apiserver",
      "kube-controller-manager",
      "kube-proxy",
      "kube-rbac-proxy",
      "kube-scheduler",
    ]);
  });

  it("with no hints, no container is background and the model's idle prediction (zero features) is removed", async () => {
    const { table, summary } = await isolate(
      containers,
      { isolator: "trainer", energySource: "acpi", absPipelineName: "ec2" },
      { backgroundModels: sourceOf([linearModel("LinearRegressionTrainer_0", 5, 120, 1e-8)]) },
    );
    expect(summary.backgroundContainerNames).toEqual([]);
    expect(summary.targetContainerCount).toBe(62);
    expectLabels(table, () => 120);
  });

  it("chooses by the 0.7 correlation rule: a lower-MAE model leaving uncorrelated dynamic power loses", async () => {
    // C predicts 1 MW: the dynamic power is 0 everywhere, correlation 0 (NaN counts as 0).
    const models = [linearModel("A_0", 5, 150), linearModel("B_0", 8, 100), linearModel("C_0", 1, 1e6)];
    const { summary } = await isolate(
      containers,
      { isolator: "trainer", energySource: "acpi", targetHints: ["coremark"], absPipelineName: "ec2" },
      { backgroundModels: sourceOf(models) },
    );
    expect(summary.absModel!.modelName).toBe("A_0");
    expect(summary.notices).toEqual([]);
  });

  it("refuses when the pipeline has no AbsPower model", async () => {
    await expect(
      isolate(
        containers,
        { isolator: "trainer", energySource: "acpi", absPipelineName: "empty" },
        { backgroundModels: sourceOf([]) },
      ),
    ).rejects.toThrow(
      'the trainer isolator found no AbsPower model of pipeline "empty" for acpi in the feature groups of the data (CounterOnly): train that pipeline first or choose another isolator',
    );
  });
});

describe("isBetterModel (reference is_better)", () => {
  const cases: Array<
    [string, { maeWatts: number; maxCorrelation: number } | undefined, { maeWatts: number; maxCorrelation: number }, boolean]
  > = [
    ["the first model always wins", undefined, { maeWatts: 99, maxCorrelation: 0 }, true],
    ["correlated and lower MAE wins", { maeWatts: 5, maxCorrelation: 0.9 }, { maeWatts: 4, maxCorrelation: 0.7 }, true],
    ["correlated but higher MAE loses", { maeWatts: 5, maxCorrelation: 0.2 }, { maeWatts: 6, maxCorrelation: 0.95 }, false],
    ["equal MAE: higher correlation wins", { maeWatts: 5, maxCorrelation: 0.8 }, { maeWatts: 5, maxCorrelation: 0.85 }, true],
    ["equal MAE: lower correlation loses", { maeWatts: 5, maxCorrelation: 0.85 }, { maeWatts: 5, maxCorrelation: 0.8 }, false],
    [
      "both below: at least as correlated and lower MAE wins",
      { maeWatts: 5, maxCorrelation: 0.3 },
      { maeWatts: 4, maxCorrelation: 0.3 },
      true,
    ],
    [
      "both below: less correlated loses despite lower MAE",
      { maeWatts: 5, maxCorrelation: 0.3 },
      { maeWatts: 1, maxCorrelation: 0.2 },
      false,
    ],
    [
      "uncorrelated never replaces a correlated model",
      { maeWatts: 5, maxCorrelation: 0.9 },
      { maeWatts: 1, maxCorrelation: 0.5 },
      false,
    ],
  ];
  for (const [name, current, candidate, expected] of cases) {
    it(name, () => expect(isBetterModel(current, candidate)).toBe(expected));
  }
});

describe("backgroundSelector", () => {
  it("targets: anything not hinted is background; background hints: only hinted; none: nothing", () => {
    expect(backgroundSelector({ targetHints: ["coremark"], backgroundHints: ["x"] })("coremark")).toBe(false);
    expect(backgroundSelector({ targetHints: ["coremark"], backgroundHints: [] })("etcd")).toBe(true);
    expect(backgroundSelector({ targetHints: [], backgroundHints: ["etcd"] })("etcd")).toBe(true);
    expect(backgroundSelector({ targetHints: [], backgroundHints: ["etcd"] })("coremark")).toBe(false);
    expect(backgroundSelector({ targetHints: [], backgroundHints: [] })("system_processes")).toBe(false);
  });
});
