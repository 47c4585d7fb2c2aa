// Issue 17 acceptance: with all six services in one process (port 0, default models present), a full
// RunPipeline on the bundled coremark recording with every trainer runs while a client calls Estimate every
// 5 ms and health every 50 ms. Every call succeeds, and Estimate's p99 (measured from each call's scheduled
// start, so a stalled event loop counts against every call due in the stall) stays under the issue's 50 ms.
//
// Margin: on a shared 2-core machine (other test processes running) this measured p99 14-43 ms over seven
// runs with 2 worker threads, and 54-93 ms with `--worker-threads 0` (fits, extraction and isolation on the
// event loop), so the issue's bound is asserted as is: it fails without the pool. What remains of the tail
// is garbage collection and table transport between the in-process services. bench/workers prints both.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { SERVICE_NAMES } from "../../services/kit/config/service-addresses.js";
import { type DefaultMeshHandle, startMeshWithDefaultModels } from "../../services/mesh/start-mesh-with-default-models.js";
import { estimateDuringPipeline } from "../support/estimate-during-pipeline.js";

const ISSUE_P99_MS = 50;

let modelPath: string;
let mesh: DefaultMeshHandle;

beforeAll(async () => {
  modelPath = await mkdtemp(join(tmpdir(), "estimate-during-pipeline-"));
  mesh = await startMeshWithDefaultModels({
    logger: silentLogger(),
    flags: {
      ...Object.fromEntries(SERVICE_NAMES.map((name) => [`${name}-port`, "0"])),
      "model-path": modelPath,
      "registry-rescan-ms": "0",
      "worker-threads": "2",
    },
    defaultModels: true,
  });
}, 120_000);

afterAll(async () => {
  await mesh?.close();
  await rm(modelPath, { recursive: true, force: true });
});

describe("Estimate and health during a full RunPipeline (trainer fits and extraction on worker threads)", () => {
  // The bound is the issue's; a tail latency on a shared 2-core runner is noisy, so a run may be retried
  // (every run must still answer every call).
  it("answers every call, Estimate and health p99 under 50 ms", { timeout: 180_000, retry: 2 }, async () => {
    expect(mesh.defaultModels?.status).toBe("trained");
    const run = await estimateDuringPipeline(mesh, "under-load");
    console.log(
      `pipeline ${run.pipelineMs.toFixed(0)} ms; Estimate ${run.estimate.calls} calls p50 ${run.estimate.p50Ms.toFixed(1)} ms ` +
        `p99 ${run.estimate.p99Ms.toFixed(1)} ms max ${run.estimate.maxMs.toFixed(1)} ms; health ${run.health.calls} calls ` +
        `p99 ${run.health.p99Ms.toFixed(1)} ms`,
    );
    // 2 sources x 2 output types x 2 feature groups x every trainer, all published.
    expect(run.summary).toMatchObject({ pipelineName: "under-load", succeededCount: 80, failedCount: 0 });
    expect(run.errors).toEqual([]);
    expect(run.estimate.calls).toBeGreaterThan(100);
    expect(run.health.calls).toBeGreaterThan(10);
    expect(run.estimate.p99Ms).toBeLessThan(ISSUE_P99_MS);
    expect(run.health.p99Ms).toBeLessThan(ISSUE_P99_MS);
  });
});
