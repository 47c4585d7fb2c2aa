// VM model accuracy on the Kepler-attribution test bed (test/vm/support/kepler-attribution-testbed.ts,
// data: seed 7, two hours of standard workloads to train on, the next half hour of mixed workloads held
// out, truth = Kepler 0.10's attributed watts): package / core / uncore / dram MAPE per VM size, for the
// unseen 6-vCPU size (interpolated and nearest-unscaled), per scenario, with and without host context
// and lagged features.   npm run bench -- vm-accuracy [--trainer=SGDRegressorTrainer | --trainer=default]
// (default: vm-train's default trainers, each size served by the one of lowest test-split MAE).
import { DEFAULT_VM_TRAINERS } from "../../services/vm-power/index.js";
import { ATTRIBUTION_SCENARIOS } from "../../test/vm/support/kepler-attribution-testbed.js";
import { scenarioAccuracy } from "../../test/vm/support/vm-accuracy.js";

export default async function run(): Promise<void> {
  const trainer = process.argv.find((a) => a.startsWith("--trainer="))?.slice("--trainer=".length) ?? "LinearRegressionTrainer";
  const trainers = trainer === "default" ? [...DEFAULT_VM_TRAINERS] : [trainer];
  console.log(`trainers ${trainers.join(", ")}; MAPE % on held-out mixed workloads vs Kepler 0.10 attribution (seed 7)`);
  for (const scenario of ATTRIBUTION_SCENARIOS) {
    console.log(`\n${scenario.name}`);
    console.log(
      "variant          | lag kept | size                                | package | core   | uncore | dram   | lag forced | model",
    );
    for (const result of await scenarioAccuracy(scenario, { seed: 7, trainers }))
      result.sizes.forEach((size, i) =>
        console.log(
          [
            result.variant.padEnd(16),
            String(result.lagKept).padEnd(8),
            size.label.padEnd(35),
            ...["package", "core", "uncore", "dram"].map((zone) => size.mape[zone]!.toFixed(1).padStart(6)),
            (result.withLag === undefined ? "" : result.withLag[i]!.mape.package!.toFixed(1)).padStart(10),
            size.model,
          ].join(" | "),
        ),
      );
  }
}
