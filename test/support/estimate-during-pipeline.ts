// Issue 17's load case, shared by the test and bench/workers: a full RunPipeline on the bundled coremark
// recording with every trainer, while one client calls Estimate every 5 ms (and health every tenth call)
// on the same mesh. Reports each call's latency and every failed call.
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";
import { gunzip } from "node:zlib";
import { createClient } from "nice-grpc";
import { HealthDefinition } from "nice-grpc-server-health";
import { createEstimatorClient } from "../../services/estimator/client.js";
import { EstimateRequest } from "../../services/generated/kepler/model/v1/estimator_service.js";
import {
  type RunPipelineRequest,
  RunPipelineOptions,
  type RunPipelineSummary,
} from "../../services/generated/kepler/model/v1/pipeline_service.js";
import { IsolatorKind } from "../../services/generated/kepler/model/v1/types.js";
import { CHUNK_BYTES } from "../../services/kit/transport/message-limits.js";
import type { MeshHandle } from "../../services/mesh/start-mesh.js";
import { DEFAULT_DATASET_PATH } from "../../services/mesh/default-models.js";
import { EXAMPLE_ESTIMATE_REQUEST } from "../../services/mesh/estimate-example.js";
import { createPipelineClient } from "../../services/pipeline/client.js";
import { listTrainers } from "../../services/trainer/domain/trainer-registry.js";

export interface LatencyStats {
  calls: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface EstimateDuringPipeline {
  pipelineMs: number;
  summary: RunPipelineSummary;
  estimate: LatencyStats;
  health: LatencyStats;
  /** One line per failed Estimate or health call. */
  errors: string[];
}

export function latencyStats(samples: readonly number[]): LatencyStats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
  return { calls: sorted.length, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: sorted[sorted.length - 1] ?? Number.NaN };
}

async function* runRequests(pipelineName: string, response: Buffer): AsyncGenerator<RunPipelineRequest> {
  const trainerNames = listTrainers().map((t) => t.name);
  const options = RunPipelineOptions.fromPartial({
    pipelineName,
    energySources: ["rapl-sysfs", "acpi"],
    isolator: IsolatorKind.ISOLATOR_KIND_MIN,
    absTrainerNames: trainerNames,
    dynTrainerNames: trainerNames,
  });
  yield { content: { $case: "options", value: options } };
  for (let start = 0; start < response.byteLength; start += CHUNK_BYTES) {
    yield { content: { $case: "responseChunk", value: response.subarray(start, start + CHUNK_BYTES) } };
  }
}

/** One Estimate every 5 ms (200 calls/s), and a health check every tenth. */
const CALL_INTERVAL_MS = 5;

const address = (mesh: MeshHandle, name: string) => mesh.servers.find((server) => server.name === name)!.address;

/** Runs the pipeline `pipelineName` once on `mesh` with nothing else going on. */
export async function runFullPipeline(
  mesh: MeshHandle,
  pipelineName: string,
): Promise<{ pipelineMs: number; summary: RunPipelineSummary }> {
  const pipeline = createPipelineClient(address(mesh, "pipeline"));
  try {
    const response = await promisify(gunzip)(await readFile(DEFAULT_DATASET_PATH));
    const started = performance.now();
    let summary: RunPipelineSummary | undefined;
    for await (const message of pipeline.client.runPipeline(runRequests(pipelineName, response))) {
      if (message.content?.$case === "summary") summary = message.content.value;
    }
    if (summary === undefined) throw new Error("RunPipeline ended without a summary");
    return { pipelineMs: performance.now() - started, summary };
  } finally {
    pipeline.close();
  }
}

/** Runs the pipeline `pipelineName` once on `mesh` (all six services, models present) under Estimate load. */
export async function estimateDuringPipeline(mesh: MeshHandle, pipelineName: string): Promise<EstimateDuringPipeline> {
  const estimator = createEstimatorClient(address(mesh, "estimator"));
  const health = createClient(HealthDefinition, estimator.channel);
  const pipeline = createPipelineClient(address(mesh, "pipeline"));
  // Pinned to the default pipeline's models: what is measured is the event loop, not the estimator
  // reloading a newly published best model (a separate cost, paid once per publish).
  const request = { ...EstimateRequest.fromJSON(EXAMPLE_ESTIMATE_REQUEST), pipelineName: "default" };
  const response = await promisify(gunzip)(await readFile(DEFAULT_DATASET_PATH));
  const estimateMs: number[] = [];
  const healthMs: number[] = [];
  const errors: string[] = [];
  const timed = async (samples: number[], label: string, due: number, call: () => Promise<unknown>) => {
    try {
      await call();
      samples.push(performance.now() - due);
    } catch (error) {
      errors.push(`${label}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  try {
    // Warm: the first Estimate loads the model; that is not what this measures.
    for (let i = 0; i < 20; i++) await estimator.client.estimate(request);
    let done = false;
    const started = performance.now();
    const run = (async () => {
      let summary: RunPipelineSummary | undefined;
      try {
        for await (const message of pipeline.client.runPipeline(runRequests(pipelineName, response))) {
          if (message.content?.$case === "summary") summary = message.content.value;
        }
      } finally {
        done = true;
      }
      if (summary === undefined) throw new Error("RunPipeline ended without a summary");
      return { summary, pipelineMs: performance.now() - started };
    })();
    // Open loop: calls start on a fixed schedule whether or not earlier ones returned, and each latency runs
    // from its scheduled start, so a stalled event loop delays every call due in the stall (not just one).
    const calls: Array<Promise<void>> = [];
    for (let call = 0; !done; call++) {
      const due = started + call * CALL_INTERVAL_MS;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      calls.push(timed(estimateMs, "Estimate", due, () => estimator.client.estimate(request)));
      if (call % 10 === 0) calls.push(timed(healthMs, "health", due, () => health.check({ service: "" })));
    }
    await Promise.all(calls);
    const { summary, pipelineMs } = await run;
    return { pipelineMs, summary, estimate: latencyStats(estimateMs), health: latencyStats(healthMs), errors };
  } finally {
    estimator.close();
    pipeline.close();
  }
}
