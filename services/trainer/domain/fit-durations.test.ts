// Domain test: the order fits start in, from learned fit and publish times.
import { describe, expect, it } from "vitest";
import { FitDurations, fitStartOrder } from "./fit-durations.js";

// Ten trainers' expected fit times (ms), shaped like the coremark fits on a cold process: XGBoost longest,
// then gradient boosting and SVR, the curve fits and linear models short.
const expected = [12, 30, 12, 4, 30, 70, 25, 20, 11, 12];
const all = expected.map((_, k) => k);

describe("fitStartOrder", () => {
  it("is longest first without publishing, ties in list order", () => {
    expect(fitStartOrder(all, 0, (k) => expected[k]!, 0)).toEqual([5, 1, 4, 6, 7, 0, 2, 9, 8, 3]);
    expect(fitStartOrder(all, 0, () => 0, 0)).toEqual(all); // nothing learned yet: list order
  });

  it("with 9 ms publishes, starts each fit by its turn to publish less its time", () => {
    // start by: k * 9 - expected[k] = -12, -21, 6, 23, 6, -25, 29, 43, 61, 69
    expect(fitStartOrder(all, 0, (k) => expected[k]!, 9)).toEqual([5, 1, 0, 2, 4, 3, 6, 7, 8, 9]);
  });

  it("counts turns from the next result to publish", () => {
    // next = 6: start by (k - 6) * 9 - expected[k] for k = 6..9: -25, -11, 7, 15
    expect(fitStartOrder([9, 8, 7, 6], 6, (k) => expected[k]!, 9)).toEqual([6, 7, 8, 9]);
    expect(fitStartOrder([9, 8, 7, 6], 6, (k) => expected[k]!, 0)).toEqual([6, 7, 9, 8]);
  });
});

describe("FitDurations", () => {
  it("learns fit time per training row and publish time, smoothed", () => {
    const durations = new FitDurations();
    expect([durations.expectedMs("SVRRegressorTrainer", 100), durations.expectedPublishMs()]).toEqual([0, 0]);
    durations.record("SVRRegressorTrainer", 200, 40);
    durations.record("SVRRegressorTrainer", 100, 40);
    expect(durations.expectedMs("SVRRegressorTrainer", 100)).toBeCloseTo(30, 12); // (0.2 + 0.4) / 2 per row
    durations.recordPublish(8);
    durations.recordPublish(12);
    durations.recordPublish(Number.NaN); // ignored
    expect(durations.expectedPublishMs()).toBe(10);
  });
});
