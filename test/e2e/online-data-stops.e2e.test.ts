// Online pipelines against a live Prometheus whose data stops and later resumes (issue 13 row 7): the
// coremark recording backfilled with a 120 s gap (lookback delta 1 s: backfilled series carry no staleness
// markers, and a longer delta overlaps ended container series, which the extractor rejects).
// The online loop must train once when the data stops, skip while nothing new arrives, and train again
// on the first run after the data resumes.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { createExtractorClient } from "../../services/extractor/client.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { type MeshHandle, startMesh } from "../../services/mesh/start-mesh.js";
import { createIsolatorClient } from "../../services/isolator/client.js";
import { OnlinePipelines } from "../../services/pipeline/domain/online-pipelines.js";
import type { PipelineRunOptions } from "../../services/pipeline/domain/pipeline-options.js";
import { type PipelineRunSummary, runPipeline } from "../../services/pipeline/domain/run-pipeline.js";
import { createGrpcPeers } from "../../services/pipeline/grpc-peers.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { createTrainerClient } from "../../services/trainer/client.js";
import { coremarkDocument, startBackfilledPrometheus } from "../support/backfilled-coremark.js";
import { COREMARK_WINDOW, type PrometheusInstance, describeWithPrometheus, shiftToYesterday } from "../support/prometheus.js";
import { coremarkOnlineOptions } from "../support/online-spec.js";

const { stepSeconds: STEP_SECONDS, first: FIRST } = COREMARK_WINDOW;
// The data stops after STOP and resumes at RESUME (samples strictly between them are dropped).
const STOP = FIRST + 300;
const RESUME = STOP + 120;
const SHIFT = shiftToYesterday();
// The service clock per run: five runs after the data stopped (at every phase of the 3 s grid), then one
// after it resumed.
const CLOCK = [10, 17, 24.5, 31, 38, 150].map((offset) => STOP + SHIFT + offset);

let prometheus: PrometheusInstance;
let mesh: MeshHandle;
let modelPath: string;
const address = (name: string) => mesh.servers.find((server) => server.name === name)!.address;

beforeAll(async () => {
  const saved = coremarkDocument();
  for (const seriesList of Object.values(saved))
    for (const series of seriesList) series.values = series.values.filter(([t]) => t <= STOP || t >= RESUME);
  prometheus = await startBackfilledPrometheus(saved, SHIFT, "1s");
  modelPath = await mkdtemp(join(tmpdir(), "online-stops-"));
  const ports = Object.fromEntries(
    ["registry", "estimator", "pipeline", "extractor", "isolator", "trainer"].map((name) => [`${name}-port`, "0"]),
  );
  mesh = await startMesh({
    logger: silentLogger(),
    flags: { ...ports, "model-path": modelPath, "registry-rescan-ms": "0", "prometheus-allowlist": prometheus.baseUrl },
  });
}, 120_000);

afterAll(async () => {
  await mesh?.close();
  await prometheus?.stop();
  if (modelPath !== undefined) await rm(modelPath, { recursive: true, force: true });
});

describeWithPrometheus("online pipeline, live Prometheus whose data stops", () => {
  it("5 runs after the data stopped: 1 trained, 4 skipped; the first run after it resumed trains", async () => {
    const clients = {
      registry: createRegistryClient(address("registry")),
      extractor: createExtractorClient(address("extractor")),
      isolator: createIsolatorClient(address("isolator")),
      trainer: createTrainerClient(address("trainer")),
    };
    const peers = createGrpcPeers(clients);
    let clock = CLOCK[0]!;
    const runs: Array<{ window: { startTimeSeconds: number; endTimeSeconds: number }; summary: PipelineRunSummary }> = [];
    const online = new OnlinePipelines({
      run: async (options: PipelineRunOptions, gate, signal) => {
        const summary = await runPipeline(options, { peers, signal }, gate);
        if (options.data.kind === "window") runs.push({ window: options.data.window, summary });
        clock = CLOCK[runs.length] ?? clock;
        return summary;
      },
      nowSeconds: () => clock,
      minIntervalSeconds: 0.01,
    });
    try {
      online.start({
        options: coremarkOnlineOptions("online_stops", {
          baseUrl: prometheus.baseUrl,
          startTimeSeconds: 0,
          endTimeSeconds: 0,
          stepSeconds: STEP_SECONDS,
          thirdPartyMetricNames: [],
          metricPrefix: "",
        }),
        intervalSeconds: 0.05,
        lookbackSeconds: 120,
      });
      await vi.waitFor(
        () => expect(runs.length + (online.get("online_stops")?.lastError === "" ? 0 : 1000)).toBeGreaterThanOrEqual(6),
        {
          timeout: 120_000,
          interval: 20,
        },
      );
      expect(online.get("online_stops")?.lastError).toBe("");
      const first = runs.slice(0, 6);
      // Each window ends on the 3 s grid at or before the clock and spans 120 s.
      expect(first.map(({ window }) => window.endTimeSeconds - (STOP + SHIFT))).toEqual([9, 15, 24, 30, 36, 150]);
      expect(first.every(({ window }) => window.endTimeSeconds - window.startTimeSeconds === 120)).toBe(true);
      expect(first.map(({ summary }) => (summary.skipped ? "skipped" : "trained"))).toEqual([
        "trained",
        "skipped",
        "skipped",
        "skipped",
        "skipped",
        "trained",
      ]);
      // The gate saw the last real sample, not the newest (filled) grid point, and then the resumed data.
      expect(first.slice(0, 5).map(({ summary }) => summary.newestSampleSeconds)).toEqual(Array(5).fill(STOP + SHIFT));
      expect(first[5]!.summary.newestSampleSeconds).toBeGreaterThanOrEqual(RESUME + SHIFT);
      const stopped = await online.stop("online_stops");
      expect(stopped.runCount).toBe(2);
      expect(stopped.skippedRunCount).toBe(runs.length - 2);
      const models = (await clients.registry.client.listModels({ pipelineName: "online_stops" })).models;
      expect(models.map((m) => m.modelName)).toContain("LinearRegressionTrainer_0");
    } finally {
      await online.close();
      for (const client of Object.values(clients)) client.close();
    }
  }, 180_000);
});
