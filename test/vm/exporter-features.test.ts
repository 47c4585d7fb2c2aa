// The exporter serves models trained with the opt-in transforms: `<feature>_lag1` from its previous tick
// and the host-context features from a host-context source, computed as the training table computes them.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GUEST_OS_FEATURES } from "../../services/domain/feature-groups.js";
import { createComponentPredictor } from "../../services/estimator/domain/predictor.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { fileModelProvider, HOST_CONTEXT_FEATURES, VmExporter, ZONES } from "../../services/vm-power/index.js";
import { MadeUpGuest, writeLinearVmArchive } from "./support/modelled-vm.js";
import { scratchFolder } from "./support/tree-scenario.js";

const FEATURES = [...GUEST_OS_FEATURES, "guest_cpu_user_ratio_lag1", ...HOST_CONTEXT_FEATURES];
// package: 1 + 10 x user + 5 x user_lag1 + 1 x guest_host_package_watts; other zones: 1 + 10 x user
const COEFFICIENT: Record<string, number> = {
  guest_cpu_user_ratio: 10,
  guest_cpu_user_ratio_lag1: 5,
  guest_host_package_watts: 1,
};

let dir = "";
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("exporter with lagged and host-context features", () => {
  it("takes the previous tick's value for _lag1 and the host's watts per busy CPU for guest_host_<zone>_watts", async () => {
    dir = scratchFolder("exporter-features-");
    const modelPath = join(dir, "model.zip");
    writeLinearVmArchive(
      modelPath,
      FEATURES,
      ZONES.map((zone) => ({
        intercept: 1,
        coefficients: FEATURES.map((f) => (zone !== "package" && f !== "guest_cpu_user_ratio" ? 0 : (COEFFICIENT[f] ?? 0))),
      })),
    );
    const guest = new MadeUpGuest();
    const ratios = [0.2, 0.5, 0.3];
    let seconds = 1000;
    const exporter = new VmExporter({
      read: async () => guest.snapshot((seconds += 5), ratios.shift() ?? 0),
      power: { kind: "model", provider: fileModelProvider(modelPath, createComponentPredictor) },
      hostContext: {
        read: async () => ({ hostCpus: 16, usageRatio: 0.5, activeWatts: { package: 40, core: 20, uncore: 5, dram: 6 } }),
      },
      nodeName: "vm-1",
      logger: silentLogger(),
    });
    await exporter.refreshModel();
    expect(await exporter.tick()).toBe("first-reading");
    // The second reading has features but no previous tick's: the lagged model cannot run yet.
    expect(await exporter.tick()).toBe("error");
    expect(await exporter.tick()).toBe("ok");
    // MadeUpGuest: 4 vCPUs, system +1 s per tick (5 s): busy = 4 x (0.3 + 0.05) = 1.4 vCPUs; the host's
    // package watts per busy CPU = 40 / (0.5 x 16) = 5, so guest_host_package_watts = 7.
    const [pkg, core] = exporter.status.watts!;
    expect(pkg).toBeCloseTo(1 + 10 * 0.3 + 5 * 0.5 + 7, 9);
    expect(core).toBeCloseTo(1 + 10 * 0.3, 9);
  });

  it("a lagged model taking over from the host's number runs at once, on the last host tick's features", async () => {
    dir = scratchFolder("exporter-features-");
    const modelPath = join(dir, "model.zip");
    const lagged = [...GUEST_OS_FEATURES, "guest_cpu_user_ratio_lag1"];
    writeLinearVmArchive(
      modelPath,
      lagged,
      ZONES.map(() => ({ intercept: 1, coefficients: lagged.map((f) => COEFFICIENT[f] ?? 0) })),
    );
    const guest = new MadeUpGuest();
    const ratios = [0.2, 0.5, 0.3];
    let seconds = 1000;
    let hostUp = true;
    const exporter = new VmExporter({
      read: async () => guest.snapshot((seconds += 5), ratios.shift() ?? 0),
      power: { kind: "model", provider: fileModelProvider(modelPath, createComponentPredictor) },
      hostPower: {
        description: "test host",
        async read() {
          if (!hostUp) throw new Error("host gone");
          return { watts: Float64Array.from(ZONES, () => 9), sampleSeconds: seconds };
        },
      },
      nodeName: "vm-1",
      logger: silentLogger(),
    });
    await exporter.refreshModel();
    expect(await exporter.tick()).toBe("first-reading");
    expect(await exporter.tick()).toBe("ok"); // the host's watts; the guest's user ratio 0.5 this tick
    expect(exporter.status.source).toBe("host");
    hostUp = false;
    expect(await exporter.tick()).toBe("ok");
    expect(exporter.status.source).toBe("model");
    expect(exporter.status.watts![0]).toBeCloseTo(1 + 10 * 0.3 + 5 * 0.5, 9);
  });
});
