// End-to-end: SIGTERM to `kepler-model serve` while a long RunPipeline trains and EstimateStream streams
// are open. Every call finishes or ends with a clean status (CANCELLED / UNAVAILABLE), the process exits 0
// within the shutdown grace, and the model folder holds only complete models: nothing for the registry's
// recovery to repair, and a restarted registry serves every model with its folder matching its zip.
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { gunzip } from "node:zlib";
import { ClientError, Status } from "nice-grpc";
import { afterEach, describe, expect, it } from "vitest";
import { createEstimatorClient } from "../../services/estimator/client.js";
import type { EstimateStreamRequest } from "../../services/generated/kepler/model/v1/estimator_service.js";
import { RunPipelineOptions, type RunPipelineRequest } from "../../services/generated/kepler/model/v1/pipeline_service.js";
import { IsolatorKind, OutputType } from "../../services/generated/kepler/model/v1/types.js";
import { CHUNK_BYTES } from "../../services/kit/transport/message-limits.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { DEFAULT_DATASET_PATH } from "../../services/mesh/default-models.js";
import { COLLECTOR_FEATURE_NAMES, EXAMPLE_FEATURE_VALUES } from "../../services/mesh/estimate-example.js";
import { readZip } from "../../services/models/index.js";
import { createPipelineClient } from "../../services/pipeline/client.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { startRegistry } from "../../services/registry/main.js";
import { buildTestArchive, publishTestArchive } from "../support/model-archives.js";
import { REFERENCE_TRAINER_NAMES } from "../../services/trainer/domain/trainer.js";
import type { RunningChild } from "../support/child-process.js";
import { bareEstimateRequest } from "../support/bare-estimate-request.js";
import { type ServeChild, spawnServe } from "../support/serve-child.js";

const STREAMS = 8;
// Concurrent runs, so training outlasts the pipeline server's grace period on a fast machine too.
const RUNS = 3;
// The kit's default shutdown grace is 10 s per server; the mesh closes dependents first (estimator, then
// pipeline, ...), so open streams and a running pipeline can each use one grace period.
const EXIT_BOUND_MS = 35_000;
const CLEAN_CODES = [Status.CANCELLED, Status.UNAVAILABLE];

let dir: string;
const children: RunningChild[] = [];
afterEach(async () => {
  for (const { child } of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

function startServe(modelPath: string): Promise<ServeChild> {
  return spawnServe(children, ["--model-path", modelPath], 60_000);
}

/** How a call ended: "ok" (finished normally) or the status code name. */
function outcomeOf(error: unknown): string {
  if (error instanceof ClientError) return Status[error.code] ?? String(error.code);
  throw error;
}

/** A collector: a 100-row batch every 50 ms until the server ends the stream or the call fails. */
async function collectorStream(address: string, counts: { answered: number }): Promise<string> {
  const estimator = createEstimatorClient(address);
  const width = COLLECTOR_FEATURE_NAMES.length;
  const values = Float64Array.from({ length: 100 * width }, (_, i) => EXAMPLE_FEATURE_VALUES[i % width]! * (0.5 + (i % 7) / 10));
  async function* requests(): AsyncGenerator<EstimateStreamRequest> {
    for (let tick = 0; ; tick++) {
      yield {
        requestId: String(tick),
        estimate: bareEstimateRequest(COLLECTOR_FEATURE_NAMES, values),
      };
      await sleep(50);
    }
  }
  try {
    for await (const response of estimator.client.estimateStream(requests())) {
      if (response.result?.$case === "estimate") counts.answered++;
      else throw new Error(`stream batch failed: ${JSON.stringify(response.result?.value)}`);
    }
    return "ok";
  } catch (error) {
    return outcomeOf(error);
  } finally {
    estimator.close();
  }
}

/** RunPipeline with every trainer over the bundled recording, both sources, AbsPower and DynPower. */
async function longPipelineRun(
  address: string,
  pipelineName: string,
  progress: { results: number; published: number; summary: boolean },
): Promise<string> {
  const pipeline = createPipelineClient(address);
  const response = await promisify(gunzip)(await readFile(DEFAULT_DATASET_PATH));
  const options = RunPipelineOptions.fromPartial({
    pipelineName,
    energySources: ["rapl-sysfs", "acpi"],
    isolator: IsolatorKind.ISOLATOR_KIND_MIN,
    absTrainerNames: [...REFERENCE_TRAINER_NAMES],
    dynTrainerNames: [...REFERENCE_TRAINER_NAMES],
  });
  async function* requests(): AsyncGenerator<RunPipelineRequest> {
    yield { content: { $case: "options", value: options } };
    for (let start = 0; start < response.byteLength; start += CHUNK_BYTES) {
      yield { content: { $case: "responseChunk", value: response.subarray(start, start + CHUNK_BYTES) } };
    }
  }
  try {
    for await (const message of pipeline.client.runPipeline(requests())) {
      if (message.content?.$case === "result") {
        progress.results++;
        if (message.content.value.failureReason === "") progress.published++;
      }
      if (message.content?.$case === "summary") progress.summary = true;
    }
    return "ok";
  } catch (error) {
    return outcomeOf(error);
  } finally {
    pipeline.close();
  }
}

async function until(condition: () => boolean, what: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** Every file and folder under `path`, relative to it. */
async function entriesUnder(path: string): Promise<string[]> {
  return (await readdir(path, { recursive: true })).map(String);
}

const metadataOf = (zip: Uint8Array) => new TextDecoder().decode(readZip(zip).find((e) => e.name === "metadata.json")?.data);

describe("SIGTERM under load", () => {
  it("during a long RunPipeline and open EstimateStream streams: clean statuses, exit 0, only complete models", async () => {
    dir = await mkdtemp(join(tmpdir(), "sigterm-load-"));
    const modelPath = join(dir, "models");
    const { serve, addresses } = await startServe(modelPath);

    // A model the streams are answered by from the start.
    const registry = createRegistryClient(addresses.registry!);
    await publishTestArchive(
      registry,
      buildTestArchive({
        pipelineName: "served",
        energySource: "rapl-sysfs",
        featureGroup: "BPFOnly",
        trainerName: "LinearRegressionTrainer",
        nodeType: 0,
        features: ["bpf_cpu_time_ms"],
        scale: [1],
        maeWatts: 1,
        model: { kind: "linear", components: [10, 5, 3, 2].map((intercept) => ({ intercept, coefficients: [0.001] })) },
      }),
    );
    registry.close();

    const runStartMs = Date.now();
    const runs = Array.from({ length: RUNS }, (_, i) => {
      const progress = { results: 0, published: 0, summary: false };
      return { progress, outcome: longPipelineRun(addresses.pipeline!, `long-${i}`, progress) };
    });
    const results = () => runs.reduce((sum, run) => sum + run.progress.results, 0);
    const streamCounts = Array.from({ length: STREAMS }, () => ({ answered: 0 }));
    const streamOutcomes = streamCounts.map((counts) => collectorStream(addresses.estimator!, counts));

    // Mid-run: training has produced results and every stream has been answered.
    await until(
      () => runs.every((run) => run.progress.results >= 1) && streamCounts.every((c) => c.answered >= 3),
      "training results and answered streams",
    );
    expect(runs.some((run) => run.progress.summary)).toBe(false);
    const answeredBefore = streamCounts.map((c) => c.answered);
    const resultsAtSignal = results();
    const publishedAtSignal = runs.reduce((sum, run) => sum + run.progress.published, 0);
    const signalledMs = Date.now();
    serve.child.kill("SIGTERM");
    const exitCode = await serve.exited;
    const exitMs = Date.now() - signalledMs;

    expect(exitCode).toBe(0);
    expect(exitMs).toBeLessThan(EXIT_BOUND_MS);
    // Each run either finished (summary sent) or got a clean status; never INTERNAL or UNKNOWN.
    const pipelineEnds = await Promise.all(runs.map((run) => run.outcome));
    for (const [i, end] of pipelineEnds.entries()) {
      if (end === "ok") expect(runs[i]!.progress.summary).toBe(true);
      else expect(CLEAN_CODES.map((code) => Status[code])).toContain(end);
    }
    // The estimator ends its open streams with OK at shutdown instead of holding them for the grace period.
    const streamEnds = await Promise.all(streamOutcomes);
    expect(streamEnds).toEqual(Array.from({ length: STREAMS }, () => "ok"));
    expect(streamCounts.every((c, i) => c.answered >= answeredBefore[i]!)).toBe(true);
    console.info(
      `SIGTERM under load: exit 0 after ${exitMs} ms; RunPipeline ${pipelineEnds.join(", ")} after ${results()} results ` +
        `(${resultsAtSignal} at SIGTERM, ${Math.round(signalledMs - runStartMs)} ms into the run); streams ${streamEnds.join(", ")}`,
    );

    // Nothing half-written: no journal, moved-aside folder or temporary file anywhere (their names start
    // with a dot), so the registry's recovery has nothing to repair.
    const entries = await entriesUnder(modelPath);
    expect(entries.filter((entry) => entry.split("/").some((part) => part.startsWith(".")))).toEqual([]);
    expect(entries.filter((entry) => entry.endsWith("/metadata.json")).length).toBeGreaterThan(1);

    // A restarted registry serves every model, each folder matching its zip.
    const restarted = await startRegistry(
      { host: "127.0.0.1", port: 0, modelPath, rescanIntervalMs: 0, sourcePipelines: [] },
      { logger: silentLogger() },
    );
    const client = createRegistryClient(restarted.address);
    try {
      const { models } = await client.client.listModels({ pageSize: 1000 });
      // The served model and at least what the runs had reported published before SIGTERM.
      expect(models.length).toBeGreaterThanOrEqual(1 + publishedAtSignal);
      for (const model of models) {
        const location = model.location!;
        const chunks: Buffer[] = [];
        for await (const message of client.client.getModelArchive({ location })) chunks.push(Buffer.from(message.archiveChunk));
        const output = location.outputType === OutputType.OUTPUT_TYPE_DYN_POWER ? "DynPower" : "AbsPower";
        const folder = join(
          modelPath,
          location.pipelineName,
          location.energySource,
          output,
          location.featureGroup,
          model.modelName,
        );
        expect(await readFile(join(folder, "metadata.json"), "utf8")).toBe(metadataOf(Buffer.concat(chunks)));
      }
    } finally {
      client.close();
      await restarted.close();
    }
  }, 240_000);
});
