// Online pipelines (reference online_trainer.py, §9.2, which is marked "TODO: test" and fails at start):
// each repeats a run against a live Prometheus every interval, reading the last `lookback` seconds, and
// trains only when the newest sample is newer than the one the last training run saw. Windows sit on the
// step grid (multiples of the step, as Kepler's own query grid): an unaligned window shifts every grid point
// each run, and Prometheus fills a grid point with the last sample up to its lookback delta, so with the
// exporter stopped the newest grid point would still look new on every run.
import { InvalidInputError, NotFoundError, AlreadyExistsError } from "../../domain/errors.js";
import { DEFAULT_STEP_SECONDS } from "../../prometheus/query-window.js";
import { assertWindowBounds } from "../../prometheus/window-bounds.js";
import type { PipelineRunOptions } from "./pipeline-options.js";
import type { PrometheusWindowSpec } from "./pipeline-peers.js";
import type { PipelineRunSummary, RunGate } from "./run-pipeline.js";

/** The state of one online pipeline. */
export interface OnlinePipelineStatus {
  readonly pipelineName: string;
  running: boolean;
  readonly intervalSeconds: number;
  readonly startedTimeSeconds: number;
  /** Runs that trained models. */
  runCount: number;
  /** Runs skipped because no new data arrived. */
  skippedRunCount: number;
  /** 0 before the first run ends. */
  lastRunTimeSeconds: number;
  /** Why the last run failed; empty when it succeeded or was skipped. */
  lastError: string;
}

/** An online pipeline to start: run options whose data is a live window (its times are replaced per run). */
export interface OnlinePipelineSpec {
  readonly options: Omit<PipelineRunOptions, "data"> & { readonly window: PrometheusWindowSpec };
  /** Seconds between runs; 0 means 300 (reference PROM_QUERY_INTERVAL). */
  readonly intervalSeconds: number;
  /** Seconds of data each run reads (rounded up to whole steps), ending at the last step-grid point; 0 means the interval. */
  readonly lookbackSeconds: number;
}

export interface OnlinePipelinesDeps {
  /** One pipeline run (runPipeline over the peers). */
  run(options: PipelineRunOptions, gate: RunGate, signal: AbortSignal): Promise<PipelineRunSummary>;
  nowSeconds?: () => number;
  logger?: { warn(fields: object, message: string): void };
  /** Shortest interval accepted; MIN_ONLINE_SECONDS unless a test needs fast repeats. */
  minIntervalSeconds?: number;
}

/** Starting a pipeline that already runs online. */
class OnlinePipelineConflictError extends AlreadyExistsError {
  override readonly name = "OnlinePipelineConflictError";
}

const DEFAULT_INTERVAL_SECONDS = 300;
/** Shortest interval and lookback: each run queries Prometheus and trains, which takes seconds. */
const MIN_ONLINE_SECONDS = 10;
/** Longest interval and lookback (7 days); also keeps the timer below setTimeout's 2^31 ms, past which it fires at once. */
const MAX_ONLINE_SECONDS = 7 * 24 * 3600;

// 0 (the default) is resolved before this check.
function assertSecondsWithin(field: string, seconds: number, minSeconds: number): void {
  if (!(seconds >= minSeconds && seconds <= MAX_ONLINE_SECONDS))
    throw new InvalidInputError(field, `must be 0 (the default) or ${minSeconds} .. ${MAX_ONLINE_SECONDS} s, got ${seconds}`);
}

interface Entry {
  status: OnlinePipelineStatus;
  /** Ends the wait between runs (stop). */
  readonly wake: AbortController;
  /** Cancels a run in progress (shutdown only: stop lets the current run finish). */
  readonly cancel: AbortController;
  stopping: boolean;
  loop: Promise<void>;
}

const wait = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });

/**
 * The window ending at the last step-grid point at or before `nowSeconds`, reaching back at least
 * `lookbackSeconds` (whole steps), so the same sample lands on the same grid point in every run.
 */
export function alignedWindow(
  nowSeconds: number,
  lookbackSeconds: number,
  stepSeconds: number,
): { startTimeSeconds: number; endTimeSeconds: number } {
  const endTimeSeconds = Math.floor(nowSeconds / stepSeconds) * stepSeconds;
  return { startTimeSeconds: endTimeSeconds - Math.ceil(lookbackSeconds / stepSeconds) * stepSeconds, endTimeSeconds };
}

/** The online pipelines of one pipeline service. */
export class OnlinePipelines {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly deps: OnlinePipelinesDeps) {}

  private now(): number {
    return this.deps.nowSeconds?.() ?? Date.now() / 1000;
  }

  /** Starts repeating a pipeline; the first run starts at once. */
  start(spec: OnlinePipelineSpec): OnlinePipelineStatus {
    const name = spec.options.pipelineName;
    if (this.entries.get(name)?.status.running === true)
      throw new OnlinePipelineConflictError(`pipeline "${name}" already runs online: stop it first`);
    const intervalSeconds = spec.intervalSeconds === 0 ? DEFAULT_INTERVAL_SECONDS : spec.intervalSeconds;
    const lookbackSeconds = spec.lookbackSeconds === 0 ? intervalSeconds : spec.lookbackSeconds;
    const minSeconds = this.deps.minIntervalSeconds ?? MIN_ONLINE_SECONDS;
    assertSecondsWithin("interval_seconds", intervalSeconds, minSeconds);
    assertSecondsWithin("lookback_seconds", lookbackSeconds, minSeconds);
    const stepSeconds = spec.options.window.stepSeconds === 0 ? DEFAULT_STEP_SECONDS : spec.options.window.stepSeconds;
    assertWindowBounds({ startSeconds: 0, endSeconds: lookbackSeconds, stepSeconds }, "options.window");
    const entry: Entry = {
      status: {
        pipelineName: name,
        running: true,
        intervalSeconds,
        startedTimeSeconds: this.now(),
        runCount: 0,
        skippedRunCount: 0,
        lastRunTimeSeconds: 0,
        lastError: "",
      },
      wake: new AbortController(),
      cancel: new AbortController(),
      stopping: false,
      loop: Promise.resolve(),
    };
    this.entries.set(name, entry);
    entry.loop = this.repeat(entry, spec, lookbackSeconds, stepSeconds);
    return { ...entry.status };
  }

  private async repeat(entry: Entry, spec: OnlinePipelineSpec, lookbackSeconds: number, stepSeconds: number): Promise<void> {
    const { window, ...rest } = spec.options;
    let newestTrainedSeconds = Number.NEGATIVE_INFINITY;
    while (!entry.stopping) {
      const times = alignedWindow(this.now(), lookbackSeconds, stepSeconds);
      const options: PipelineRunOptions = {
        ...rest,
        data: { kind: "window", window: { ...window, ...times } },
        continueFromCheckpoint: true,
      };
      try {
        const summary = await this.deps.run(options, { newerThanSeconds: newestTrainedSeconds }, entry.cancel.signal);
        if (summary.skipped) {
          entry.status.skippedRunCount++;
          entry.status.lastError = "";
        } else {
          entry.status.runCount++;
          newestTrainedSeconds = summary.newestSampleSeconds ?? newestTrainedSeconds;
          entry.status.lastError =
            summary.succeededCount > 0 ? "" : `no model was trained (${summary.failedCount} trainers failed)`;
        }
      } catch (error) {
        entry.status.lastError = error instanceof Error ? error.message : String(error);
        this.deps.logger?.warn({ pipeline: entry.status.pipelineName, reason: entry.status.lastError }, "online run failed");
      }
      entry.status.lastRunTimeSeconds = this.now();
      await wait(entry.status.intervalSeconds * 1000, entry.wake.signal);
    }
    entry.status.running = false;
  }

  /** Stops a pipeline after its current run, if any, and returns its final state. */
  async stop(pipelineName: string): Promise<OnlinePipelineStatus> {
    const entry = this.entries.get(pipelineName);
    if (entry === undefined || !entry.status.running) throw new NotFoundError(`online pipeline "${pipelineName}"`);
    entry.stopping = true;
    entry.wake.abort();
    await entry.loop;
    return { ...entry.status };
  }

  /** Every online pipeline, running or stopped, ordered by name. */
  list(): OnlinePipelineStatus[] {
    return [...this.entries.values()]
      .map((entry) => ({ ...entry.status }))
      .sort((a, b) => (a.pipelineName < b.pipelineName ? -1 : a.pipelineName > b.pipelineName ? 1 : 0));
  }

  /** One pipeline's state, or undefined when it never ran online here. */
  get(pipelineName: string): OnlinePipelineStatus | undefined {
    const entry = this.entries.get(pipelineName);
    return entry === undefined ? undefined : { ...entry.status };
  }

  /** Shutdown: cancels runs in progress and ends every loop. */
  async close(): Promise<void> {
    for (const entry of this.entries.values()) {
      entry.stopping = true;
      entry.wake.abort();
      entry.cancel.abort();
    }
    await Promise.all([...this.entries.values()].map((entry) => entry.loop));
  }
}
