// One soak client process: `streams` EstimateStream streams (one channel each, as separate collectors
// would have), each sending a `batchRows`-row batch every `intervalMs`, plus `unaryClients` clients
// calling Estimate every `unaryIntervalMs`, until `durationMs` has passed. Prints one JSON line: calls,
// errors by gRPC status code name, and latency histograms.
//   node --import tsx bench/soak/load-client.ts '<LoadPlan JSON>'
import { ClientError, Status } from "nice-grpc";
import { setTimeout as sleep } from "node:timers/promises";
import { createEstimatorClient } from "../../services/estimator/client.js";
import type { EstimateRequest, EstimateStreamRequest } from "../../services/generated/kepler/model/v1/estimator_service.js";
import { OutputType } from "../../services/generated/kepler/model/v1/types.js";
import { COLLECTOR_FEATURE_NAMES, EXAMPLE_FEATURE_VALUES } from "../../services/mesh/estimate-example.js";
import { type LatencyHistogram, recordLatency } from "./latency-histogram.js";

/** What one client process does. */
export interface LoadPlan {
  readonly address: string;
  readonly streams: number;
  readonly unaryClients: number;
  readonly batchRows: number;
  readonly intervalMs: number;
  readonly unaryIntervalMs: number;
  readonly durationMs: number;
  /** Seed of the row values, so each process sends different but repeatable rows. */
  readonly seed: number;
}

/** What one client process reports. */
export interface LoadResult {
  /** Stream batches answered with an estimate, and unary calls answered OK. */
  readonly okCalls: { stream: number; unary: number };
  /** Failures by status code name: per-batch errors inside a stream, stream failures, unary failures. */
  readonly errors: Record<string, number>;
  /** Ticks skipped because a stream already had `MAX_OUTSTANDING` batches unanswered (server behind). */
  readonly skippedTicks: number;
  readonly streamLatency: LatencyHistogram;
  readonly unaryLatency: LatencyHistogram;
}

const MAX_OUTSTANDING = 20;

function random(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

// A batch like a collector's: the example node row scaled per row (0.2x .. 1.2x load).
function estimateRequest(rows: number, next: () => number, energySource: string, outputType: OutputType): EstimateRequest {
  const width = COLLECTOR_FEATURE_NAMES.length;
  const values = new Float64Array(rows * width);
  for (let row = 0; row < rows; row++) {
    const load = 0.2 + next();
    for (let column = 0; column < width; column++) values[row * width + column] = EXAMPLE_FEATURE_VALUES[column]! * load;
  }
  return {
    featureNames: [...COLLECTOR_FEATURE_NAMES],
    rowCount: rows,
    values: Buffer.from(values.buffer),
    valueList: [],
    outputType,
    energySource,
    systemFeatureNames: [],
    systemFeatureValues: [],
    trainerName: "",
    filter: "",
    unavailableFeatureNames: [],
    pipelineName: "",
  };
}

function statusName(code: number): string {
  return Status[code] ?? `CODE_${code}`;
}

async function runLoad(plan: LoadPlan): Promise<LoadResult> {
  const next = random(plan.seed);
  const endMs = performance.now() + plan.durationMs;
  const errors: Record<string, number> = {};
  const countError = (code: number) => {
    errors[statusName(code)] = (errors[statusName(code)] ?? 0) + 1;
  };
  const result = {
    okCalls: { stream: 0, unary: 0 },
    errors,
    skippedTicks: 0,
    streamLatency: {} as LatencyHistogram,
    unaryLatency: {} as LatencyHistogram,
  };
  const sources = ["rapl-sysfs", "acpi"];

  async function stream(index: number): Promise<void> {
    const estimator = createEstimatorClient(plan.address);
    const energySource = sources[index % sources.length]!;
    // A few fixed batches per stream, cycled: building 100-row tables must not load the client.
    const batches = Array.from({ length: 8 }, () =>
      estimateRequest(plan.batchRows, next, energySource, OutputType.OUTPUT_TYPE_ABS_POWER),
    );
    const sentAt = new Map<string, number>();
    let tick = 0;
    async function* requests(): AsyncGenerator<EstimateStreamRequest> {
      const startMs = performance.now() + Math.random() * plan.intervalMs; // spread the streams' ticks
      while (true) {
        const dueMs = startMs + tick * plan.intervalMs;
        if (dueMs >= endMs) return;
        await sleep(Math.max(0, dueMs - performance.now()));
        tick++;
        if (sentAt.size >= MAX_OUTSTANDING) {
          result.skippedTicks++;
          continue;
        }
        const requestId = String(tick);
        sentAt.set(requestId, performance.now());
        yield { requestId, estimate: batches[tick % batches.length] };
      }
    }
    try {
      while (performance.now() < endMs) {
        try {
          for await (const response of estimator.client.estimateStream(requests())) {
            const sent = sentAt.get(response.requestId);
            sentAt.delete(response.requestId);
            if (response.result?.$case === "error") countError(response.result.value.code);
            else {
              result.okCalls.stream++;
              if (sent !== undefined) recordLatency(result.streamLatency, performance.now() - sent);
            }
          }
        } catch (error) {
          // The stream failed as a whole: count it, then reconnect as a collector would.
          countError(error instanceof ClientError ? error.code : Status.UNKNOWN);
          sentAt.clear();
          await sleep(100);
        }
      }
    } finally {
      estimator.close();
    }
  }

  async function unary(index: number): Promise<void> {
    const estimator = createEstimatorClient(plan.address);
    const request = estimateRequest(plan.batchRows, next, sources[index % sources.length]!, OutputType.OUTPUT_TYPE_DYN_POWER);
    try {
      for (let call = 0; performance.now() < endMs; call++) {
        const startMs = performance.now();
        try {
          await estimator.client.estimate(request);
          result.okCalls.unary++;
          recordLatency(result.unaryLatency, performance.now() - startMs);
        } catch (error) {
          countError(error instanceof ClientError ? error.code : Status.UNKNOWN);
        }
        await sleep(Math.max(0, plan.unaryIntervalMs - (performance.now() - startMs)));
      }
    } finally {
      estimator.close();
    }
  }

  await Promise.all([
    ...Array.from({ length: plan.streams }, (_, i) => stream(i)),
    ...Array.from({ length: plan.unaryClients }, (_, i) => unary(i)),
  ]);
  return result;
}

const plan = JSON.parse(process.argv[2] ?? "{}") as LoadPlan;
process.stdout.write(`${JSON.stringify(await runLoad(plan))}\n`);
