// One size of the scale benchmark, in its own process so its peak RSS (VmHWM) is its own: reads the
// recording file streamed (never held whole), extracts the container-level table, isolates (min isolator) and trains
// DynPower models with the trainers whose cost is linear in rows. Prints one JSON line of timings.
import { readFileSync } from "node:fs";
import { readPrometheusResponseFile } from "../../services/domain/prometheus-response.js";
import { extract } from "../../services/extractor/domain/extract.js";
import { isolate } from "../../services/isolator/domain/isolate.js";
import { trainModels } from "../../services/trainer/domain/train-models.js";

/** Linear-time trainers: KNN, SVR and the boosted trees grow faster than rows by design, not by us. */
export const SCALE_TRAINERS = ["LinearRegressionTrainer", "SGDRegressorTrainer", "PolynomialRegressionTrainer"];

function peakRssMiB(): number {
  const line = readFileSync("/proc/self/status", "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmHWM:"));
  return line === undefined ? process.resourceUsage().maxRSS / 1024 : Number(line.split(/\s+/)[1]) / 1024;
}

const path = process.argv[2];
if (path === undefined) throw new Error("usage: size-run.ts <recording.json>");
const t0 = performance.now();
const response = await readPrometheusResponseFile(path);
const t1 = performance.now();
const extracted = extract(response, {
  energySource: "rapl-sysfs",
  featureGroup: "WorkloadOnly",
  level: "container",
  extractor: "default",
});
const t2 = performance.now();
const isolated = await isolate(extracted.table, { isolator: "min", energySource: "rapl-sysfs" });
const t3 = performance.now();
const trained = await trainModels({
  table: isolated.table,
  energySource: "rapl-sysfs",
  featureGroup: "WorkloadOnly",
  outputType: "DynPower",
  trainerNames: SCALE_TRAINERS,
  seed: 1,
  skipPublish: true,
});
const t4 = performance.now();
process.stdout.write(
  JSON.stringify({
    parseMs: t1 - t0,
    extractMs: t2 - t1,
    isolateMs: t3 - t2,
    trainMs: t4 - t3,
    totalMs: t4 - t0,
    containerRows: extracted.table.rowCount,
    isolatedRows: isolated.table.rowCount,
    trainerResults: trained.results.length,
    peakRssMiB: peakRssMiB(),
  }) + "\n",
);
