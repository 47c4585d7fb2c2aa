// A real Prometheus (the Debian package's prometheus, found on PATH) for integration and end-to-end tests:
// backfill recorded data with promtool, start the server on 127.0.0.1 with a temporary TSDB, stop it
// and remove the folder. Nothing here mocks Prometheus.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describeWith, systemTool } from "./system-tools.js";

const run = promisify(execFile);

/** A running Prometheus; `stop()` ends it and deletes its data folder. */
export interface PrometheusInstance {
  readonly baseUrl: string;
  readonly port: number;
  readonly dataDir: string;
  /** Output the server wrote so far (for failure messages). */
  output(): string;
  stop(): Promise<void>;
}

export interface PrometheusOptions {
  /** OpenMetrics text to backfill before start (seconds timestamps, ends with `# EOF`). */
  readonly backfillOpenMetrics?: string;
  /**
   * How far back an evaluation looks for a sample (Prometheus' default is 5m). Backfilled data has no
   * staleness markers, so a series that stopped would otherwise repeat its last value for 5 minutes.
   */
  readonly lookbackDelta?: string;
  /** Extra command-line flags. */
  readonly extraArgs?: readonly string[];
  /** host:port targets scraped every second at /metrics (job "kepler-model"). */
  readonly scrapeTargets?: readonly string[];
}

/** Prometheus and promtool on PATH (Debian package prometheus). */
export const PROMETHEUS_TOOLS = [systemTool("prometheus"), systemTool("promtool")] as const;
/** Path of the prometheus binary. */
export const PROMETHEUS_BINARY = PROMETHEUS_TOOLS[0].path ?? "prometheus";
/** Path of promtool. */
export const PROMTOOL_BINARY = PROMETHEUS_TOOLS[1].path ?? "promtool";
/** `describe` for tests that run Prometheus: skipped, naming the package, where it is not installed. */
export const describeWithPrometheus = describeWith(...PROMETHEUS_TOOLS);

/** Starts Prometheus on 127.0.0.1 with a fresh TSDB (backfilled if asked) and waits until it is ready. */
export async function startPrometheus(options: PrometheusOptions = {}): Promise<PrometheusInstance> {
  const dataDir = await mkdtemp(join(tmpdir(), "prometheus-test-"));
  try {
    const tsdb = join(dataDir, "tsdb");
    const config = join(dataDir, "prometheus.yml");
    const targets = options.scrapeTargets ?? [];
    await writeFile(
      config,
      targets.length === 0
        ? "global:\n  scrape_interval: 15s\nscrape_configs: []\n"
        : `global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: kepler-model\n    static_configs:\n      - targets: [${targets.map((t) => `"${t}"`).join(", ")}]\n`,
    );
    if (options.backfillOpenMetrics !== undefined) {
      const input = join(dataDir, "backfill.om");
      await writeFile(input, options.backfillOpenMetrics);
      await run(PROMTOOL_BINARY, ["tsdb", "create-blocks-from", "openmetrics", input, tsdb], { maxBuffer: 16 * 1024 * 1024 });
    }
    const port = await freePort();
    const child = spawn(
      PROMETHEUS_BINARY,
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${tsdb}`,
        `--web.listen-address=127.0.0.1:${port}`,
        "--storage.tsdb.retention.time=100y",
        `--query.lookback-delta=${options.lookbackDelta ?? "5m"}`,
        ...(options.extraArgs ?? []),
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    child.stdout?.on("data", (data: Buffer) => {
      output += data.toString();
    });
    child.stderr?.on("data", (data: Buffer) => {
      output += data.toString();
    });
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    const baseUrl = `http://127.0.0.1:${port}`;
    const instance: PrometheusInstance = {
      baseUrl,
      port,
      dataDir,
      output: () => output,
      async stop() {
        await stopChild(child, exited);
        await rm(dataDir, { recursive: true, force: true });
      },
    };
    try {
      await waitUntilReady(baseUrl, child, () => output);
    } catch (error) {
      await instance.stop();
      throw error;
    }
    return instance;
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}

async function waitUntilReady(baseUrl: string, child: ChildProcess, output: () => string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}:\n${output()}`);
    try {
      const response = await fetch(`${baseUrl}/-/ready`, { signal: AbortSignal.timeout(1_000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`prometheus not ready after ${timeoutMs} ms:\n${output()}`);
}

/** A port that was free a moment ago (Prometheus needs an explicit port). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The bundled coremark recording's window: 3 s steps from `first` to `last` (Unix seconds, 2023-09-22). */
export const COREMARK_WINDOW = { stepSeconds: 3, first: 1695361425, last: 1695361986 } as const;

/**
 * Seconds that move the 2023 recording to a day ago (Prometheus keeps backfilled blocks relative to now),
 * a whole number of steps so query_range's grid hits every sample.
 */
export function shiftToYesterday(): number {
  const { first, stepSeconds } = COREMARK_WINDOW;
  return Math.floor((Date.now() / 1000 - 86_400 - first) / stepSeconds) * stepSeconds;
}

/** A saved-response document: metric name -> series with `[seconds, "value"]` samples. */
export type SavedResponseDocument = Record<string, Array<{ metric: Record<string, string>; values: Array<[number, string]> }>>;

/**
 * Converts a saved response to OpenMetrics text for `promtool tsdb create-blocks-from openmetrics`:
 * untyped families, one line per sample, timestamps in seconds shifted by `shiftSeconds`, `# EOF` last.
 */
export function savedResponseToOpenMetrics(document: SavedResponseDocument, shiftSeconds = 0): string {
  const lines: string[] = [];
  for (const [name, seriesList] of Object.entries(document)) {
    lines.push(`# TYPE ${name} unknown`);
    for (const series of seriesList) {
      const labels = Object.entries(series.metric)
        .filter(([label]) => label !== "__name__")
        .map(([label, value]) => `${label}="${escapeLabelValue(value)}"`)
        .join(",");
      for (const [t, value] of series.values) lines.push(`${name}{${labels}} ${value} ${t + shiftSeconds}`);
    }
  }
  lines.push("# EOF", "");
  return lines.join("\n");
}

function escapeLabelValue(value: string): string {
  return value.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n");
}
