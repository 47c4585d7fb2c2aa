// VM model accuracy on the Kepler 0.10 attribution test bed (test/vm/support/kepler-attribution-testbed.ts,
// seed 7; trained on two hours of standard workloads, scored on the next half hour of mixed workloads never
// trained on, truth = Kepler's attributed watts). What this asserts is what holds today: with host context
// and lagged features, every trained size and the unseen 6-vCPU size (interpolated between 4 and 8) are
// under 10 % package MAPE on a big host, the unscaled nearest model is not; SGD (one of vm-train's default
// trainers) with the lag its test split keeps is under 10 % too; host context more than halves the
// uncore/dram error with memory-bound neighbours. LinearRegression on the guest's own features alone is
// not under 10 % here (12.6-16.6 %): `npm run bench -- vm-accuracy` reports every case.
import { describe, expect, it } from "vitest";
import { ATTRIBUTION_SCENARIOS } from "./support/kepler-attribution-testbed.js";
import { scenarioAccuracy } from "./support/vm-accuracy.js";

describe("VM models on Kepler 0.10's attribution", () => {
  it("host context + lag: package MAPE < 10 % per size and for the unseen size interpolated; nearest-unscaled is worse", async () => {
    const results = await scenarioAccuracy(ATTRIBUTION_SCENARIOS[0]!, { seed: 7, variants: ["guest+host", "guest+host+lag"] });
    const withLag = results.find((r) => r.variant === "guest+host+lag")!;
    expect(withLag.lagKept).toBe(true);
    const byLabel = new Map(withLag.sizes.map((s) => [s.label, s.mape.package!]));
    for (const label of ["2 vCPU", "4 vCPU", "8 vCPU", "6 vCPU interpolated (4..8)"]) expect(byLabel.get(label)).toBeLessThan(10);
    expect(byLabel.get("6 vCPU nearest (8) unscaled")).toBeGreaterThan(10);
  }, 120_000);

  it("SGD (a default trainer) with the lag the trainer's test split keeps: package MAPE < 10 % per size and for the unseen size", async () => {
    const results = await scenarioAccuracy(ATTRIBUTION_SCENARIOS[0]!, {
      seed: 7,
      trainer: "SGDRegressorTrainer",
      variants: ["guest", "guest+lag"],
    });
    const withLag = results.find((r) => r.variant === "guest+lag")!;
    expect(withLag.lagKept).toBe(true);
    const byLabel = new Map(withLag.sizes.map((s) => [s.label, s.mape.package!]));
    for (const label of ["2 vCPU", "4 vCPU", "8 vCPU", "6 vCPU interpolated (4..8)"]) expect(byLabel.get(label)).toBeLessThan(10);
  }, 120_000);

  it("memory-bound neighbours: host context more than halves the uncore and dram error of the guest's own features", async () => {
    const results = await scenarioAccuracy(ATTRIBUTION_SCENARIOS[1]!, { seed: 7, variants: ["guest", "guest+host"] });
    const [guest, host] = ["guest", "guest+host"].map((v) => results.find((r) => r.variant === v)!);
    for (const size of guest!.sizes.filter((s) => !s.label.includes("nearest"))) {
      const withHost = host!.sizes.find((s) => s.label === size.label)!;
      for (const zone of ["uncore", "dram"]) expect(withHost.mape[zone]!).toBeLessThan(size.mape[zone]! / 2);
    }
  }, 120_000);
});
