// GradientBoostingRegressorTrainer, XgboostFitTrainer and SVRRegressorTrainer on degenerate input,
// model-size limits and continued training (XgboostFitTrainer continues its checkpoint).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { goldenTable, goldenTestTimestamps } from "../../../../test/fixtures/trainer/fixtures.js";
import { useTrainModelFolder } from "../../../../test/support/train-model-folder.js";
import type { Matrix } from "../../../../wasm-core/src/index.js";
import { readModelFolder } from "../../../models/index.js";
import { trainModels } from "../train-models.js";
import { type FitContext, TrainerFitError } from "../trainer.js";
import { gradientBoostingRegressorTrainer } from "./gradient-boosting-regressor.js";
import { createSvrRegressorTrainer, svrRegressorTrainer } from "./svr-regressor.js";
import { createXgboostFitTrainer, xgboostFitTrainer } from "./xgboost-fit.js";

const context: FitContext = { component: "package", features: ["a", "b"], mainFeatureIndex: 0, seed: 0 };

// rows x 2 distinct features (golden-ratio sequences, so no two splits tie), target 100 + 50 a + 20 sin(6 b)
function table(rows: number): { x: Matrix; y: Float64Array } {
  const a = Float64Array.from({ length: rows }, (_, i) => (i * 0.6180339887498949) % 1);
  const b = Float64Array.from({ length: rows }, (_, i) => (0.1 + i * 0.41421356237309515) % 1);
  const values = new Float64Array(rows * 2);
  values.set(a, 0);
  values.set(b, rows);
  return { x: { rows, cols: 2, values }, y: Float64Array.from(a, (v, i) => 100 + 50 * v + 20 * Math.sin(6 * (b[i] as number))) };
}

describe("degenerate input", () => {
  const one = { x: { rows: 1, cols: 2, values: Float64Array.of(0.5, 0.5) }, y: Float64Array.of(3) };

  it.each([gradientBoostingRegressorTrainer, xgboostFitTrainer, svrRegressorTrainer])(
    "$name needs 2 training rows",
    (trainer) => {
      expect(() => trainer.fit(one.x, one.y, context)).toThrow(new TrainerFitError("needs at least 2 training rows, got 1"));
    },
  );

  it("predicts a constant target exactly: GBR and XGB as single-leaf trees, SVR as its intercept", () => {
    const { x } = table(40);
    const y = new Float64Array(40).fill(42.5);
    const gbr = gradientBoostingRegressorTrainer.fit(x, y, context);
    const xgb = xgboostFitTrainer.fit(x, y, context);
    const svr = svrRegressorTrainer.fit(x, y, context);
    if (gbr.kind !== "gradient_boosting" || xgb.kind !== "xgboost_fit" || svr.kind !== "svr")
      throw new Error("unexpected model kinds");
    expect(gbr.trees.every((t) => t.feature.length === 1)).toBe(true);
    expect(xgb.base_score).toBe(42.5);
    expect(svr.dual_coef).toEqual([]);
    expect(svr.intercept).toBe(42.5);
    for (const [trainer, model] of [
      [gradientBoostingRegressorTrainer, gbr],
      [xgboostFitTrainer, xgb],
      [svrRegressorTrainer, svr],
    ] as const) {
      expect(Array.from(trainer.predict(model, x))).toEqual(Array.from(y));
    }
  });

  it("keeps duplicate rows: GBR on every row twice makes the same trees (no split between equal values)", () => {
    const { x, y } = table(40);
    const twice = { rows: 80, cols: 2, values: new Float64Array(160) };
    twice.values.set(x.values.subarray(0, 40), 0);
    twice.values.set(x.values.subarray(0, 40), 40);
    twice.values.set(x.values.subarray(40), 80);
    twice.values.set(x.values.subarray(40), 120);
    const yTwice = new Float64Array(80);
    yTwice.set(y, 0);
    yTwice.set(y, 40);
    const single = gradientBoostingRegressorTrainer.predict(gradientBoostingRegressorTrainer.fit(x, y, context), x);
    const doubled = gradientBoostingRegressorTrainer.predict(gradientBoostingRegressorTrainer.fit(twice, yTwice, context), x);
    expect(Math.max(...single.map((v, i) => Math.abs(v - (doubled[i] as number))))).toBeLessThan(1e-9);
    expect(svrRegressorTrainer.predict(svrRegressorTrainer.fit(twice, yTwice, context), x).every(Number.isFinite)).toBe(true);
    expect(xgboostFitTrainer.predict(xgboostFitTrainer.fit(twice, yTwice, context), x).every(Number.isFinite)).toBe(true);
  });
});

describe("GradientBoostingRegressorTrainer's random_state", () => {
  // sklearn 1.2.1 trees on rows where features tie (wasm-core/test/fixtures/make-gbr-tie-goldens.py)
  const ties = JSON.parse(
    readFileSync(new URL("../../../../wasm-core/test/fixtures/gbr-tie-goldens.json", import.meta.url), "utf8"),
  ) as { rows: number; cols: number; x: number[]; y: number[]; fits: Array<{ random_state: number; feature: number[] }> };

  it("is the fit's seed: the first tree breaks feature ties as sklearn's with random_state = seed", () => {
    const x = { rows: ties.rows, cols: ties.cols, values: Float64Array.from(ties.x) };
    for (const fit of ties.fits) {
      const model = gradientBoostingRegressorTrainer.fit(x, Float64Array.from(ties.y), { ...context, seed: fit.random_state });
      if (model.kind !== "gradient_boosting") throw new Error("unexpected model kind");
      expect({ seed: fit.random_state, feature: model.trees[0]!.feature }).toEqual({
        seed: fit.random_state,
        feature: fit.feature,
      });
    }
  });
});

describe("model-size limits", () => {
  const limits = { maxTrees: 150, maxTreeNodes: 100_000, maxSupportVectors: 30 };

  it("refuses to continue an XGBoost model past the tree limit", () => {
    const { x, y } = table(40);
    const trainer = createXgboostFitTrainer(limits);
    const first = trainer.fit(x, y, context);
    expect(() => trainer.fit(x, y, { ...context, previous: first })).toThrow(
      new TrainerFitError(
        "continuing the checkpoint would give 200 trees, over the limit of 150: train without continuing to start over",
      ),
    );
  });

  it("refuses an SVR fit with more training rows than support vectors allowed", () => {
    const { x, y } = table(40);
    expect(() => createSvrRegressorTrainer(limits).fit(x, y, context)).toThrow(
      new TrainerFitError("40 training rows exceed the support-vector limit of 30"),
    );
  });
});

describe("XgboostFitTrainer continued training", () => {
  it("adds 100 trees to the previous model and keeps its base score", () => {
    const { x, y } = table(40);
    const first = xgboostFitTrainer.fit(x, y, context);
    const second = xgboostFitTrainer.fit(x, y, { ...context, previous: first });
    if (first.kind !== "xgboost_fit" || second.kind !== "xgboost_fit") throw new Error("unexpected model kinds");
    expect(second.trees).toHaveLength(200);
    expect(second.trees.slice(0, 100)).toEqual(first.trees);
    expect(second.base_score).toBe(first.base_score);
    const mae = (p: Float64Array) => p.reduce((s, v, i) => s + Math.abs(v - (y[i] as number)), 0) / 40;
    expect(mae(xgboostFitTrainer.predict(second, x))).toBeLessThan(mae(xgboostFitTrainer.predict(first, x)));
  });

  const folder = useTrainModelFolder();

  it("continues from its checkpoint through trainModels; GBR and SVR refit", async () => {
    const request = {
      table: goldenTable("acpi"),
      energySource: "acpi",
      featureGroup: "CounterOnly",
      outputType: "AbsPower" as const,
      trainerNames: ["XgboostFitTrainer", "GradientBoostingRegressorTrainer", "SVRRegressorTrainer"],
      testTimestampsSeconds: goldenTestTimestamps("acpi"),
      pipelineName: "std_v0.7.11",
    };
    const group = join(folder.modelPath, "std_v0.7.11", "acpi", "AbsPower", "CounterOnly");
    await trainModels(request, folder.deps);
    const second = await trainModels({ ...request, continueFromCheckpoint: true }, folder.deps);
    expect(second.results.map((r) => r.outcome)).toEqual(["succeeded", "succeeded", "succeeded"]);
    const xgb = await readModelFolder(join(group, "XgboostFitTrainer_0"));
    expect(xgb.metadata.model_class).toBe("xgboost");
    const model = xgb.components.platform;
    if (model?.kind !== "xgboost_fit") throw new Error("no xgboost_fit model");
    expect(model.trees).toHaveLength(200);
    const gbr = (await readModelFolder(join(group, "GradientBoostingRegressorTrainer_0"))).components.platform;
    if (gbr?.kind !== "gradient_boosting") throw new Error("no gradient_boosting model");
    expect(gbr.trees).toHaveLength(100);
  });
});
