// The exporter daemon as `kepler-model exporter --tree-root` runs it: /metrics on the kit's metrics server
// says which model, pipeline and version feed the tree, the tree shows the modelled watts, and a model
// reload changes the watts but not the counters' continuity.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tickIntoTree } from "../../services/vm-power/index.js";
import { MadeUpGuest, modelWatts, writeVmModel } from "./support/modelled-vm.js";
import { useDaemonScratch, modelFilePower } from "./support/test-daemon.js";
import { MODEL_A, MODEL_B } from "./support/tree-scenario.js";

describe("exporter daemon with a tree", () => {
  const scratch = useDaemonScratch("exporter-daemon-");

  it("serves what feeds the tree on /metrics and writes the modelled watts", async () => {
    const dir = scratch.dir;
    const modelPath = join(dir, "model.zip");
    writeVmModel(modelPath, MODEL_A);
    const guest = new MadeUpGuest();
    let seconds = 1000;
    const userRatio = 0.25;
    const daemon = await scratch.start(
      { read: async () => guest.snapshot((seconds += 5), userRatio), power: modelFilePower(modelPath) },
      dir,
    );
    expect(await tickIntoTree(daemon.exporter, daemon.writer)).toBe("ok");
    const expected = modelWatts(MODEL_A, userRatio);
    const hwmon = (n: number) => Number(readFileSync(join(dir, "sys/class/hwmon/hwmon0", `power${n}_input`), "utf8"));
    expect([1, 2, 3, 4].map(hwmon)).toEqual(expected.map((w) => Math.round(w * 1e6)));

    const metrics = await (await fetch(`http://127.0.0.1:${daemon.port}/metrics`)).text();
    const version = daemon.exporter.status.modelVersion;
    expect(metrics).toContain(
      `kepler_model_exporter_tree_info{path="${join(dir, "sys")}",layout="powercap",model="LinearRegressionTrainer_0",pipeline="file",model_version="${version}",exporter_version="9.9.9"} 1`,
    );
    expect(metrics).toContain(`kepler_model_exporter_tree_watts{zone="package"} ${expected[0]}`);
    expect(metrics).toContain(
      `kepler_node_cpu_watts{node_name="vm-1",zone="core",source="model",model="LinearRegressionTrainer_0"} ${expected[1]}`,
    );

    // A reload: new watts from the next tick on, the counter keeps rising.
    const before = Number(readFileSync(join(dir, "sys/class/powercap/intel-rapl:0/energy_uj"), "utf8"));
    writeVmModel(modelPath, MODEL_B);
    expect(await daemon.exporter.refreshModel()).toBe(true);
    expect(await tickIntoTree(daemon.exporter, daemon.writer)).toBe("ok");
    expect(hwmon(1)).toBe(Math.round(modelWatts(MODEL_B, userRatio)[0]! * 1e6));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(Number(readFileSync(join(dir, "sys/class/powercap/intel-rapl:0/energy_uj"), "utf8"))).toBeGreaterThan(before);
  });
});
