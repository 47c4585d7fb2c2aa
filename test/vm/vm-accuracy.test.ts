// VM model accuracy on the Kepler 0.10 attribution test bed (test/vm/support/kepler-attribution-testbed.ts,
// seed 7; trained on two hours of standard workloads, scored on the next half hour of mixed workloads never
// trained on, truth = Kepler's attributed watts). The acceptance case is vm-train's defaults on the guest's
// own features: LinearRegression and SGD, each with the lag columns where they lower its test-split MAE,
// each size served by the one of lowest test MAE (the registry's choice): every trained size and the
// unseen 6-vCPU size (interpolated between 4 and 8) under 10 % package MAPE on a big host, the unscaled
// nearest model not. LinearRegression without the lag stays above 10 % (12.6-16.6 %): Kepler samples on
// its own clock, so the host's energy of a step mixes two of the guest's steps. `npm run bench --
// vm-accuracy` reports every case.
import { describe, expect, it } from "vitest";
import { DEFAULT_VM_TRAINERS } from "../../services/vm-power/index.js";
import { ATTRIBUTION_SCENARIOS } from "./support/kepler-attribution-testbed.js";
import { scenarioAccuracy } from "./support/vm-accuracy.js";

const TRAINED_AND_UNSEEN = ["2 vCPU", "4 vCPU", "8 vCPU", "6 vCPU interpolated (4..8)"];

describe("VM models on Kepler 0.10's attribution", () => {
  it("vm-train's defaults, guest features only: package MAPE < 10 % per size and for the unseen size; without the lag > 10 %", async () => {
    const results = await scenarioAccuracy(ATTRIBUTION_SCENARIOS[0]!, {
      seed: 7,
      trainers: DEFAULT_VM_TRAINERS,
      variants: ["guest", "guest+lag"],
    });
    const [plain, withLag] = ["guest", "guest+lag"].map((v) => results.find((r) => r.variant === v)!);
    expect(withLag!.lagKept).toBe(true);
    const byLabel = new Map(withLag!.sizes.map((s) => [s.label, s.mape.package!]));
    for (const label of TRAINED_AND_UNSEEN) expect(byLabel.get(label), label).toBeLessThan(10);
    expect(byLabel.get("6 vCPU nearest (8) unscaled")).toBeGreaterThan(10);
    for (const size of plain!.sizes) expect(size.mape.package!, size.label).toBeGreaterThan(10);
  }, 120_000);

  it("vm-train's defaults on other seeds of the bed: package MAPE < 10 % per size and for the unseen size", async () => {
    for (const seed of [1, 2, 3]) {
      const [withLag] = await scenarioAccuracy(ATTRIBUTION_SCENARIOS[0]!, {
        seed,
        trainers: DEFAULT_VM_TRAINERS,
        variants: ["guest+lag"],
      });
      const byLabel = new Map(withLag!.sizes.map((s) => [s.label, s.mape.package!]));
      for (const label of TRAINED_AND_UNSEEN) expect(byLabel.get(label), `seed ${seed} ${label}`).toBeLessThan(10);
    }
  }, 120_000);

  it("host context + lag, LinearRegression: package MAPE < 10 % per size and for the unseen size interpolated; nearest-unscaled is worse", async () => {
    const results = await scenarioAccuracy(ATTRIBUTION_SCENARIOS[0]!, { seed: 7, variants: ["guest+host+lag"] });
    const withLag = results[0]!;
    expect(withLag.lagKept).toBe(true);
    const byLabel = new Map(withLag.sizes.map((s) => [s.label, s.mape.package!]));
    for (const label of TRAINED_AND_UNSEEN) expect(byLabel.get(label), label).toBeLessThan(10);
    expect(byLabel.get("6 vCPU nearest (8) unscaled")).toBeGreaterThan(10);
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
