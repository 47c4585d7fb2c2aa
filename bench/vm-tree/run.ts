// The exporter with the modelled tree for Kepler 0.10+ (issue 30: tick < 10 ms, RSS < 100 MB): one tick
// that also hands the watts to the tree and rewrites it (read /proc, features, predict, powercap + hwmon
// files), one flush of the tree alone (what the 10 ms timer does), and a real bundled exporter writing the
// tree every 10 ms for 10 s: its peak RSS and CPU share.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { componentsOf } from "../../services/domain/energy-sources.js";
import { GUEST_OS_FEATURES } from "../../services/domain/feature-groups.js";
import { createComponentPredictor } from "../../services/estimator/domain/predictor.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { buildTestArchive } from "../../test/support/model-archives.js";
import { fileModelProvider, readProcCounters, tickIntoTree, TreeWriter, VmExporter } from "../../services/vm-power/index.js";
import { measure, ms, printTable } from "../support/measure.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const ZONES = componentsOf("rapl-sysfs");

function processStats(pid: number): { peakRssMiB: number; cpuSeconds: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return {
    peakRssMiB: Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) / 1024,
    cpuSeconds: (Number(stat[11]) + Number(stat[12])) / 100,
  };
}

export default async function run(): Promise<void> {
  const dir = mkdtempSync(join(existsSync("/dev/shm") ? "/dev/shm" : tmpdir(), "bench-vm-tree-"));
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
      model: { kind: "linear", components: ZONES.map((_, i) => ({ intercept: 2 + i, coefficients: features.map(() => 0.001) })) },
    });
    const modelFile = join(dir, "model.zip");
    writeFileSync(modelFile, archive.zip);
    const exporter = new VmExporter({
      read: () => readProcCounters(),
      power: { kind: "model", provider: fileModelProvider(modelFile, createComponentPredictor) },
      nodeName: "bench",
      logger: silentLogger(),
    });
    const root = join(dir, "sys");
    const writer = TreeWriter.open({
      root,
      layouts: ["powercap", "hwmon"],
      zones: ZONES,
      maxEnergyRangeUj: 262_143_328_850,
      statePath: join(dir, "state.json"),
    });
    await exporter.refreshModel();
    await tickIntoTree(exporter, writer);
    const floor = await measure(() => readProcCounters(), 200, 20);
    const tick = await measure(
      async () => {
        if ((await tickIntoTree(exporter, writer)) === "error") throw new Error("tick failed");
      },
      200,
      20,
    );
    writer.close();
    // The timer's flush: 10 ms of modelled energy each time, so every energy_uj file changes.
    let clockSeconds = 0;
    const timed = TreeWriter.open({
      root: join(dir, "timed-sys"),
      layouts: ["powercap", "hwmon"],
      zones: ZONES,
      maxEnergyRangeUj: 262_143_328_850,
      statePath: join(dir, "timed-state.json"),
      clock: () => clockSeconds,
    });
    timed.setWatts([30, 20, 5, 4]);
    const flush = await measure(
      () => {
        clockSeconds += 0.01;
        timed.flush();
      },
      500,
      50,
    );
    timed.close();
    printTable(
      "one exporter tick with the modelled tree (median, this machine's /proc, tree on tmpfs)",
      ["case", "ms"],
      [
        ["read /proc only (floor)", ms(floor.medianMs)],
        ["tick: read + features + predict + tree rewrite", ms(tick.medianMs)],
        ["tree flush alone (4 energy_uj + hwmon, the 10 ms timer)", ms(flush.medianMs)],
      ],
    );

    const treeRoot = join(dir, "process-sys");
    const child = spawn(
      process.execPath,
      [
        join(REPO, "dist/kepler-model-exporter.mjs"),
        "--model-file",
        modelFile,
        "--port",
        "0",
        "--interval-seconds",
        "0.2",
        "--tree-root",
        treeRoot,
        "--tree-layout",
        "powercap,hwmon",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on("data", (data: Buffer) => {
        const match = /(http:\/\/\S+\/metrics)/.exec(data.toString());
        if (match) resolve(match[1]!);
      });
      child.once("exit", (code) => reject(new Error(`exporter exited with ${code}`)));
    });
    const before = processStats(child.pid!);
    const seconds = 10;
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const after = processStats(child.pid!);
    const metrics = await (await fetch(url)).text();
    // The exporter writes into `dir` until it has exited.
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
    const info = /kepler_model_exporter_tree_info\{[^}]*\}/.exec(metrics)?.[0] ?? "(missing)";
    const flushes = /kepler_model_exporter_tree_flushes_total (\d+)/.exec(metrics)?.[1] ?? "?";
    printTable(
      `dist/kepler-model-exporter.mjs ticking every 200 ms, tree every 10 ms, for ${seconds} s`,
      ["peak RSS (VmHWM)", "CPU", "tree flushes", "tree info"],
      [
        [
          `${after.peakRssMiB.toFixed(1)} MiB`,
          `${(((after.cpuSeconds - before.cpuSeconds) / seconds) * 100).toFixed(1)} %`,
          flushes,
          info,
        ],
      ],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
