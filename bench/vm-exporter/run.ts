// The VM exporter's cost (issue goals: inference < 10 ms per tick, < 100 MB): one tick in process
// (read /proc, features, predict, integrate) against reading /proc alone (the floor, same run), and the
// peak RSS of a real `kepler-model exporter` process ticking every 200 ms for 10 s.
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { componentsOf } from "../../services/domain/energy-sources.js";
import { GUEST_OS_FEATURES } from "../../services/domain/feature-groups.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { buildTestArchive } from "../../test/support/model-archives.js";
import { createComponentPredictor } from "../../services/estimator/domain/predictor.js";
import { fileModelProvider } from "../../services/vm-power/exporter/exporter-model.js";
import { readProcCounters } from "../../services/vm-power/guest/proc-counters.js";
import { VmExporter } from "../../services/vm-power/exporter/vm-exporter.js";
import { registerExporterMetrics } from "../../services/vm-power/exporter/exporter-metrics.js";
import { metricsRegistry } from "../../services/kit/observe/metrics.js";
import { measure, ms, printTable } from "../support/measure.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));

async function peakRssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) / 1024;
}

export default async function run(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "bench-vm-exporter-"));
  try {
    const features = [...GUEST_OS_FEATURES].sort();
    const archive = buildTestArchive({
      pipelineName: "vm-kepler-0.10",
      energySource: "rapl-sysfs",
      featureGroup: "GuestOSOnly",
      trainerName: "LinearRegressionTrainer",
      nodeType: 0,
      features,
      scale: features.map(() => 1),
      maeWatts: 1,
      model: {
        kind: "linear",
        components: componentsOf("rapl-sysfs").map((_, i) => ({ intercept: 2 + i, coefficients: features.map(() => 0.001) })),
      },
    });
    const modelFile = join(dir, "model.zip");
    await writeFile(modelFile, archive.zip);

    const exporter = new VmExporter({
      read: () => readProcCounters(),
      power: { kind: "model", provider: fileModelProvider(modelFile, createComponentPredictor) },
      nodeName: "bench",
      logger: silentLogger(),
    });
    await exporter.refreshModel();
    await exporter.tick();
    const floor = await measure(() => readProcCounters(), 200, 20);
    const tick = await measure(
      async () => {
        // Back-to-back ticks within one millisecond count as a first reading; only errors stop the bench.
        if ((await exporter.tick()) === "error") throw new Error("tick failed");
      },
      200,
      20,
    );
    registerExporterMetrics({ exporter, zones: componentsOf("rapl-sysfs"), nodeName: "bench", version: "bench" });
    const render = await measure(() => metricsRegistry.metrics(), 200, 20);
    printTable(
      "one exporter tick (median of 200, this machine's /proc)",
      ["case", "ms", "ratio"],
      [
        ["read /proc only (floor)", ms(floor.medianMs), "1.00"],
        ["tick: read + features + predict + integrate", ms(tick.medianMs), (tick.medianMs / floor.medianMs).toFixed(2)],
        ["render /metrics", ms(render.medianMs), (render.medianMs / floor.medianMs).toFixed(2)],
      ],
    );

    const rows: string[][] = [];
    for (const [name, args] of [
      [
        "dist/kepler-model-exporter.mjs (plain Node, the DaemonSet and systemd unit)",
        [join(REPO, "dist/kepler-model-exporter.mjs")],
      ],
      ["kepler-model exporter (the whole CLI through tsx)", [join(REPO, "bin/kepler-model.js"), "exporter"]],
    ] as const) {
      const child = spawn(process.execPath, [...args, "--model-file", modelFile, "--port", "0", "--interval-seconds", "0.2"], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      await new Promise<void>((resolve, reject) => {
        child.stdout.on("data", (data: Buffer) => {
          if (data.toString().includes("/metrics")) resolve();
        });
        child.once("exit", (code) => reject(new Error(`exporter exited with ${code}`)));
      });
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      rows.push([name, `${(await peakRssMiB(child.pid!)).toFixed(1)} MiB`]);
      child.kill("SIGTERM");
    }
    printTable("exporter process, ticking every 200 ms for 10 s", ["process", "peak RSS (VmHWM)"], rows);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
