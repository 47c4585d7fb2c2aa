// Estimate latency (p50/p99) and throughput over gRPC on loopback: 1, 100 and 1000 rows per call, a
// linear model and a k-nearest-neighbour model (the tree-like case until tree models are served),
// 1 and 16 concurrent clients (one channel each). The registry and estimator run in a separate
// process (`kepler-model serve registry estimator`), so client work does not share their event loop.
//   npm run bench -- estimator
//   npm run bench -- estimator --only=floor     # just the comparison with the transport floor
//   npm run bench -- estimator --only=floor --baseline=<dir>
//     # and the estimator of <dir>, a built checkout of an earlier commit (npm ci && npm run build), as a
//     # third contender in the same interleaved rounds: HEAD/baseline calls/s and calls per server CPU
//     # second per case, above 1 when HEAD is faster (transport-floor.ts). This checkout's bundle is
//     # refreshed first (npm run build:cli), so both sides run bundled; a working tree with others' edits
//     # half done may not build: then run it from a snapshot (git archive HEAD, npm run build there).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Estimator } from "../../services/estimator/domain/estimate-power.js";
import { ModelCache } from "../../services/estimator/domain/model-cache.js";
import { createComponentPredictor } from "../../services/estimator/domain/predictor.js";
import { decodeEstimateRequest } from "../../services/estimator/server.js";
import { readComponentModels, readZip } from "../../services/models/index.js";
import { checkoutRevision, CHECKOUT_ROOT, commandRunsFrom, refreshCommandBundle } from "../support/command-bundle.js";
import { baselineDir, median } from "../support/interleave.js";
import { measure, printTable } from "../support/measure.js";
import { benchArchives, estimateRequest, FEATURES, KNN_TRAINING_ROWS, publishModels, startServers } from "./bench-servers.js";
import { runCase } from "./load-cases.js";
import { type BaselineEstimator, transportFloor } from "./transport-floor.js";

// The price of metrics: the same server process with per-call measuring on (`--metrics-port 0`, the
// default behaviour) and off (`--metrics-port -1`), runs interleaved, median calls/s of 9 rounds each
// (this machine's run-to-run noise is several percent).
async function metricsCost(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "bench-metrics-"));
  const on = await startServers(join(dir, "on"), "0");
  const off = await startServers(join(dir, "off"), "-1");
  try {
    await publishModels(on.registry);
    await publishModels(off.registry);
    const rows: string[][] = [];
    for (const n of [1, 100]) {
      for (const clients of [1, 16]) {
        const request = estimateRequest("LinearRegressionTrainer", n);
        const calls = clients === 1 ? 300 : 40;
        const measured: number[] = [];
        const bare: number[] = [];
        for (let round = 0; round < 9; round++) {
          measured.push((await runCase(on.estimator, request, clients, calls)).callsPerSecond);
          bare.push((await runCase(off.estimator, request, clients, calls)).callsPerSecond);
        }
        const [withMetrics, without] = [median(measured), median(bare)];
        rows.push([String(n), String(clients), without.toFixed(0), withMetrics.toFixed(0), (withMetrics / without).toFixed(3)]);
      }
    }
    printTable(
      "Estimate calls/s with metrics off and on (linear model, interleaved, median of 9 rounds)",
      ["rows/call", "clients", "off calls/s", "on calls/s", "on/off"],
      rows,
    );
  } finally {
    for (const servers of [on, off]) {
      servers.child.kill("SIGTERM");
      await new Promise((resolve) => servers.child.on("exit", resolve));
    }
    await rm(dir, { recursive: true, force: true });
  }
}

// The Estimate use case without gRPC: the same archives, loaded straight into the estimator's domain.
async function domainOnly(): Promise<string[][]> {
  const rows: string[][] = [];
  const own = { processor: "", cores: 96, chips: 0, memoryGib: 0, frequencyMhz: 0 };
  for (const [label, archive] of [
    ["linear", benchArchives().linear],
    [`knn k=6 (${KNN_TRAINING_ROWS} rows)`, benchArchives().knn],
  ] as const) {
    const models = readComponentModels(readZip(archive.zip), ["package", "core", "uncore", "dram"]);
    const source = {
      load: async () => ({
        modelName: archive.location.modelName,
        maeWatts: 0,
        featureGroup: "Basic",
        modelCores: 96,
        features: FEATURES,
        predictor: createComponentPredictor(models),
        provenance: {},
      }),
    };
    const estimator = new Estimator(new ModelCache(source, { debug() {}, info() {}, warn() {}, error() {} }), own);
    for (const n of [1, 100, 1000]) {
      const request = estimateRequest("", n);
      const input = decodeEstimateRequest(request);
      const timing = await measure(() => estimator.estimate(input), 200, 20);
      rows.push([label, String(n), (timing.medianMs * 1000).toFixed(1), ((n / timing.medianMs) * 1000).toFixed(0)]);
    }
  }
  return rows;
}

export default async function run(): Promise<void> {
  const onlyFloor = process.argv.includes("--only=floor");
  const baselineRoot = baselineDir(process.argv);
  // Both sides run as users run them, from their bundles: this checkout's, being edited, is refreshed.
  if (baselineRoot !== undefined) refreshCommandBundle();
  const dir = await mkdtemp(join(tmpdir(), "bench-estimator-"));
  const servers = await startServers(join(dir, "models"));
  let baselineServers: Awaited<ReturnType<typeof startServers>> | undefined;
  try {
    if (baselineRoot !== undefined) baselineServers = await startServers(join(dir, "baseline-models"), "0", baselineRoot);
    await publishModels(servers.registry);
    let baseline: BaselineEstimator | undefined;
    if (baselineServers !== undefined) {
      // This checkout's client publishes into the baseline's registry: the publish contract is unchanged.
      await publishModels(baselineServers.registry);
      baseline = {
        address: baselineServers.estimator,
        pid: baselineServers.child.pid!,
        description:
          `${baselineRoot} at ${checkoutRevision(baselineRoot!)} (its ${commandRunsFrom(baselineRoot!)}); ` +
          `HEAD ${checkoutRevision(CHECKOUT_ROOT)} (its ${commandRunsFrom(CHECKOUT_ROOT)})`,
      };
    }
    if (onlyFloor) {
      await transportFloor({ address: servers.estimator, pid: servers.child.pid! }, baseline);
      return;
    }
    const rows: string[][] = [];
    for (const [label, trainer] of [
      ["linear", "LinearRegressionTrainer"],
      [`knn k=6 (${KNN_TRAINING_ROWS} rows)`, "KNeighborsRegressorTrainer"],
    ] as const) {
      for (const n of [1, 100, 1000]) {
        const request = estimateRequest(trainer, n);
        for (const clients of [1, 16]) {
          const r = await runCase(servers.estimator, request, clients, clients === 1 ? 300 : 40);
          rows.push([
            label,
            String(n),
            String(clients),
            r.p50.toFixed(2),
            r.p99.toFixed(2),
            r.callsPerSecond.toFixed(0),
            r.rowsPerSecond.toFixed(0),
          ]);
        }
      }
    }
    printTable(
      "Estimate over gRPC on loopback (registry + estimator in one server process)",
      ["model", "rows/call", "clients", "p50 ms", "p99 ms", "calls/s", "rows/s"],
      rows,
    );
    await transportFloor({ address: servers.estimator, pid: servers.child.pid! }, baseline);
  } finally {
    for (const started of [servers, baselineServers]) {
      if (started === undefined) continue;
      started.child.kill("SIGTERM");
      await new Promise((resolve) => started.child.on("exit", resolve));
    }
    await rm(dir, { recursive: true, force: true });
  }
  if (onlyFloor) return;
  await metricsCost();
  printTable(
    "The Estimate use case in-process (no gRPC), median of 200 calls",
    ["model", "rows/call", "median us", "rows/s"],
    await domainOnly(),
  );
}
