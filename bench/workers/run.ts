// The worker pool's effect (issues 17 and 19): all six services in one process, the bundled coremark
// recording, a full RunPipeline with every trainer (80 models).
//  1. pipeline time alone with --worker-threads 0 (event loop), 1 and N (available cores);
//  2. Estimate every 5 ms (open loop, latency from each call's scheduled start) and health every 50 ms
//     during one such run: p50/p99/max, per pool size;
//  3. the fits alone (trainModels, every trainer, one node type) on a table large enough for the fits to
//     dominate (the coremark fits take ~50 ms in all, less than the pipeline's transport and extraction).
//   npm run bench -- workers
import { mkdtemp, rm } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { SERVICE_NAMES } from "../../services/kit/config/service-addresses.js";
import { startMeshWithDefaultModels } from "../../services/mesh/start-mesh-with-default-models.js";
import { createDataTable } from "../../services/domain/data-table.js";
import { inThreadFitter } from "../../services/trainer/domain/fit-components.js";
import { trainModels } from "../../services/trainer/domain/train-models.js";
import { listTrainers } from "../../services/trainer/domain/trainer-registry.js";
import { createFitPool } from "../../services/trainer/fit-pool.js";
import { estimateDuringPipeline, runFullPipeline } from "../../test/support/estimate-during-pipeline.js";
import { measure, ms, printTable } from "../support/measure.js";
import { syntheticTable } from "../trainers/synthetic-table.js";

const PIPELINE_RUNS = 3;
const FIT_ROWS = 4000;

/** trainModels with every trainer on FIT_ROWS synthetic rows (acpi platform power, CounterOnly), per pool size. */
async function fitsOnly(sizes: readonly number[]): Promise<void> {
  const synthetic = syntheticTable(FIT_ROWS, 17);
  const column = (c: number) => synthetic.x.subarray(c * FIT_ROWS, (c + 1) * FIT_ROWS);
  const table = createDataTable(
    Array.from({ length: FIT_ROWS }, (_, i) => 1_700_000_000 + 3 * i),
    [
      ["cache_miss", column(0)],
      ["cpu_cycles", column(1)],
      ["cpu_instructions", column(2)],
      ["platform_power", synthetic.y],
    ],
  );
  const request = {
    table,
    energySource: "acpi",
    featureGroup: "CounterOnly",
    outputType: "AbsPower" as const,
    trainerNames: listTrainers().map((t) => t.name),
    seed: 1,
    skipPublish: true,
  };
  const rows: string[][] = [];
  let base = Number.NaN;
  for (const threads of sizes) {
    const fitter = threads === 0 ? { ...inThreadFitter, close: async () => {} } : createFitPool(threads);
    try {
      const timing = await measure(() => trainModels(request, { fitter }), 5, 1);
      if (threads === 0) base = timing.medianMs;
      rows.push([threads === 0 ? "0 (event loop)" : String(threads), ms(timing.medianMs), (base / timing.medianMs).toFixed(2)]);
    } finally {
      await fitter.close();
    }
  }
  printTable(
    `Fits only: ${listTrainers().length} trainers on ${FIT_ROWS} synthetic rows x 3 features (median of 5)`,
    ["worker threads", "ms", "speed-up"],
    rows,
  );

  // The per-fit profile: each trainer alone on the event loop. With n workers the fits cannot finish
  // before the longest one, nor before the total spread over n: that bound gives the expected speed-up.
  const profile: Array<[string, number]> = [];
  for (const trainerName of request.trainerNames) {
    const timing = await measure(() => trainModels({ ...request, trainerNames: [trainerName] }, {}), 3, 1);
    profile.push([trainerName, timing.medianMs]);
  }
  const total = profile.reduce((sum, [, time]) => sum + time, 0);
  const longest = Math.max(...profile.map(([, time]) => time));
  printTable(
    "Per-fit profile (each trainer alone, event loop, median of 3)",
    ["trainer", "ms"],
    profile.map(([name, time]) => [name, ms(time)]),
  );
  const bound = (n: number) => (total / Math.max(longest, total / n)).toFixed(2);
  process.stdout.write(
    `sum ${ms(total)} ms, longest ${ms(longest)} ms: expected speed-up at most ${bound(2)}x on 2 workers, ${bound(4)}x on 4, ${bound(16)}x on 16\n`,
  );
}

export default async function run(): Promise<void> {
  const cores = Math.max(1, availableParallelism());
  const sizes = [...new Set([0, 1, cores])];
  const rows: string[][] = [];
  for (const threads of sizes) {
    const modelPath = await mkdtemp(join(tmpdir(), "bench-workers-"));
    const mesh = await startMeshWithDefaultModels({
      logger: silentLogger(),
      flags: {
        ...Object.fromEntries(SERVICE_NAMES.map((name) => [`${name}-port`, "0"])),
        "model-path": modelPath,
        "registry-rescan-ms": "0",
        "worker-threads": String(threads),
      },
      defaultModels: true,
    });
    try {
      const times: number[] = [];
      for (let i = 0; i < PIPELINE_RUNS; i++) {
        const { pipelineMs, summary } = await runFullPipeline(mesh, `alone-${i}`);
        if (summary.failedCount > 0) throw new Error(`${summary.failedCount} trainers failed`);
        times.push(pipelineMs);
      }
      times.sort((a, b) => a - b);
      const load = await estimateDuringPipeline(mesh, "under-load");
      rows.push([
        threads === 0 ? "0 (event loop)" : String(threads),
        ms(times[Math.floor(times.length / 2)]!),
        ms(load.pipelineMs),
        String(load.estimate.calls),
        ms(load.estimate.p50Ms),
        ms(load.estimate.p99Ms),
        ms(load.estimate.maxMs),
        ms(load.health.p99Ms),
        String(load.errors.length),
      ]);
    } finally {
      await mesh.close();
      await rm(modelPath, { recursive: true, force: true });
    }
  }
  printTable(
    `Full coremark RunPipeline, 80 models, all six services in one process (${cores} cores; pipeline median of ${PIPELINE_RUNS})`,
    [
      "worker threads",
      "pipeline ms",
      "under load ms",
      "Estimate calls",
      "p50 ms",
      "p99 ms",
      "max ms",
      "health p99 ms",
      "failed calls",
    ],
    rows,
  );
  await fitsOnly(sizes);
}
