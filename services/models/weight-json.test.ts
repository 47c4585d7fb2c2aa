import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createCurveFitWeights, createLinearWeights, parseWeightJson } from "./weight-json.js";

const fixture = (name: string) => readFileSync(new URL(`../../test/fixtures/trainer/${name}`, import.meta.url), "utf8");

describe("weight.json", () => {
  it("writes the linear shape with the reference's keys in its order", () => {
    const weights = createLinearWeights(["a", "b"], [95877.00000000001, 1], [305.148172889668, 0], 143.81206324506658);
    expect(JSON.stringify(weights)).toBe(
      '{"All_Weights":{"Bias_Weight":143.81206324506658,"Categorical_Variables":{},' +
        '"Numerical_Variables":{"a":{"scale":95877.00000000001,"weight":305.148172889668},"b":{"scale":1,"weight":0}}}}',
    );
  });

  it("writes the curve-fit shape: scales only, then CurveFit_Weights", () => {
    expect(JSON.stringify(createCurveFitWeights(["a"], [2], [1, 0.5, 3]))).toBe(
      '{"All_Weights":{"Categorical_Variables":{},"Numerical_Variables":{"a":{"scale":2}},"CurveFit_Weights":[1,0.5,3]}}',
    );
  });

  it("refuses NaN weights (JSON would write null, which Go reads as 0)", () => {
    expect(() => createLinearWeights(["a"], [1], [Number.NaN], 0)).toThrow("weights.coefficients: value 0 is not finite (NaN)");
  });

  it("reads the reference's weight files back unchanged", () => {
    for (const name of ["weights_LinearRegressionTrainer_rapl-sysfs.json", "weights_LogisticRegressionTrainer_acpi.json"]) {
      const text = fixture(name);
      expect(parseWeightJson(text)).toEqual(JSON.parse(text));
    }
  });

  it("accepts Kepler 0.7.12's top-level model_name and names a bad field", () => {
    expect(parseWeightJson('{"model_name":"X_0","platform":{"All_Weights":{"Numerical_Variables":{}}}}')).toEqual({
      platform: { All_Weights: { Categorical_Variables: {}, Numerical_Variables: {} } },
    });
    expect(() => parseWeightJson('{"platform":{"All_Weights":{"Numerical_Variables":{"a":{"scale":"1"}}}}}')).toThrow(
      "weight.json.platform.All_Weights.Numerical_Variables.a.scale: expected a finite number",
    );
  });
});
