// Soak: the all-in-one mesh (`kepler-model serve`, default models trained on a fresh MODEL_PATH) in a child
// process under many EstimateStream streams plus unary Estimate clients from separate client processes for
// N minutes, with hot reloads (the served models republished) during the run. Prints calls and errors by
// status code, p50/p99 latency, the server's RSS over time and whether it stayed flat. CI never runs it.
//   npm run bench -- soak                                   # 1 minute, 64 streams, 2 client processes
//   npm run bench -- soak --minutes=10 --streams=128 --unary=16 --processes=4
// Also KEPLER_MODEL_SOAK_MINUTES. Flat means: after the first 20% of the run (warm-up), the median RSS of
// the last third of the samples is within +15% of the first third's.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createEstimatorClient } from "../../services/estimator/client.js";
import type { ModelLocation } from "../../services/generated/kepler/model/v1/model.js";
import { ModelEventKind } from "../../services/generated/kepler/model/v1/registry_service.js";
import { OutputType } from "../../services/generated/kepler/model/v1/types.js";
import { COLLECTOR_FEATURE_NAMES, EXAMPLE_FEATURE_VALUES } from "../../services/mesh/estimate-example.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { ms, printTable } from "../support/measure.js";
import { histogramCount, histogramPercentile, mergeHistograms } from "./latency-histogram.js";
import type { LoadPlan, LoadResult } from "./load-client.js";
import { type RssSample, rssTrend } from "./rss-trend.js";

const LOAD_CLIENT = new URL("./load-client.ts", import.meta.url).pathname;
const BIN = new URL("../../bin/kepler-model.js", import.meta.url).pathname;
const MiB = 1024 * 1024;

interface SoakOptions {
  minutes: number;
  streams: number;
  unary: number;
  processes: number;
  reloadEverySeconds: number;
}

function soakOptions(): SoakOptions {
  const flag = (name: string) => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.split("=")[1];
  const number = (name: string, fallback: number) => {
    const value = Number(flag(name) ?? fallback);
    if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name}: expected a positive number, got ${flag(name)}`);
    return value;
  };
  return {
    minutes: number("minutes", Number(process.env.KEPLER_MODEL_SOAK_MINUTES ?? 1)),
    streams: number("streams", 64),
    unary: number("unary", 8),
    processes: number("processes", 2),
    reloadEverySeconds: number("reload-every", 5),
  };
}

async function startServer(modelPath: string): Promise<{ child: ChildProcess; addresses: Record<string, string> }> {
  const ports = ["registry", "estimator", "pipeline", "extractor", "isolator", "trainer"].flatMap((n) => [`--${n}-port`, "0"]);
  const args = [BIN, "serve", "--model-path", modelPath, "--log-level", "warn", "--log-format", "json", ...ports];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  let output = "";
  const addresses = await new Promise<Record<string, string>>((resolve, reject) => {
    child.stdout?.on("data", (data: Buffer) => {
      output += data.toString();
      if (output.includes("Stop with Ctrl-C")) {
        resolve(Object.fromEntries([...output.matchAll(/^ {2}(\w+) +(127\.0\.0\.1:\d+)$/gm)].map((m) => [m[1], m[2]])));
      }
    });
    child.on("exit", (code) => reject(new Error(`server exited (${code}): ${output}`)));
  });
  return { child, addresses: addresses as Record<string, string> };
}

async function readRssBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) * 1024;
}

/** The models the load is served by (one Estimate per source and output type), with their bytes to republish. */
async function servedModels(addresses: Record<string, string>) {
  const estimator = createEstimatorClient(addresses.estimator!);
  const registry = createRegistryClient(addresses.registry!);
  const models: Array<{ location: ModelLocation; zip: Buffer; weightJson: string }> = [];
  try {
    for (const energySource of ["rapl-sysfs", "acpi"]) {
      for (const outputType of [OutputType.OUTPUT_TYPE_ABS_POWER, OutputType.OUTPUT_TYPE_DYN_POWER]) {
        const { modelLocation } = await estimator.client.estimate({
          featureNames: [...COLLECTOR_FEATURE_NAMES],
          rowCount: 1,
          valueList: [...EXAMPLE_FEATURE_VALUES],
          outputType,
          energySource,
        });
        const location = modelLocation as ModelLocation;
        const chunks: Buffer[] = [];
        for await (const message of registry.client.getModelArchive({ location })) chunks.push(Buffer.from(message.archiveChunk));
        const weightJson = await registry.client.getModelWeights({ location }).then(
          (response) => response.weightJson,
          () => "",
        );
        models.push({ location, zip: Buffer.concat(chunks), weightJson });
      }
    }
  } finally {
    estimator.close();
    registry.close();
  }
  return models;
}

/** Republishes the served models round-robin every `everyMs` until `signal` aborts: each one a hot reload. */
async function hotReloads(
  registryAddress: string,
  models: Awaited<ReturnType<typeof servedModels>>,
  everyMs: number,
  signal: AbortSignal,
) {
  const registry = createRegistryClient(registryAddress);
  const publishMs: number[] = [];
  let failed = 0;
  // The model events the estimator reloads on, counted from a watch of our own.
  let events = 0;
  const watching = (async () => {
    try {
      for await (const event of registry.client.watchModels({ pipelineName: "" }, { signal })) {
        if (event.kind !== ModelEventKind.MODEL_EVENT_KIND_WATCHING) events++;
      }
    } catch {
      // Ends with the abort.
    }
  })();
  try {
    for (let i = 0; !signal.aborted; i++) {
      await sleep(everyMs, undefined, { signal }).catch(() => undefined);
      if (signal.aborted) break;
      const { location, zip, weightJson } = models[i % models.length]!;
      const startMs = performance.now();
      try {
        await registry.client.publishModel(
          (async function* () {
            yield {
              content: {
                $case: "header" as const,
                value: { location, weightJson, archiveSizeBytes: zip.byteLength, archiveSha256: "" },
              },
            };
            yield { content: { $case: "archiveChunk" as const, value: zip } };
          })(),
        );
        publishMs.push(performance.now() - startMs);
      } catch {
        failed++;
      }
    }
  } finally {
    await watching;
    registry.close();
  }
  return { publishMs, failed, events };
}

function runClient(plan: LoadPlan): Promise<LoadResult> {
  const child = spawn(process.execPath, ["--import", "tsx", LOAD_CLIENT, JSON.stringify(plan)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  child.stdout?.on("data", (data: Buffer) => {
    output += data.toString();
  });
  return new Promise((resolve, reject) =>
    child.on("exit", (code) =>
      code === 0 ? resolve(JSON.parse(output) as LoadResult) : reject(new Error(`load client exited ${code}`)),
    ),
  );
}

function split(total: number, parts: number, index: number): number {
  return Math.floor(total / parts) + (index < total % parts ? 1 : 0);
}

export default async function run(): Promise<void> {
  const options = soakOptions();
  const durationMs = options.minutes * 60_000;
  const sampleEveryMs = Math.min(10_000, Math.max(2_000, durationMs / 20));
  const dir = await mkdtemp(join(tmpdir(), "bench-soak-"));
  const { child, addresses } = await startServer(join(dir, "models"));
  const pid = child.pid as number;
  try {
    const models = await servedModels(addresses);
    const idleRssBytes = await readRssBytes(pid);
    const stopReloads = new AbortController();
    const startMs = performance.now();
    const samples: RssSample[] = [];
    const sampler = setInterval(() => {
      const atSeconds = (performance.now() - startMs) / 1000;
      readRssBytes(pid).then(
        (rssBytes) => samples.push({ atSeconds, rssBytes }),
        () => undefined,
      );
    }, sampleEveryMs);
    const reloads = hotReloads(addresses.registry!, models, options.reloadEverySeconds * 1000, stopReloads.signal);
    const results = await Promise.all(
      Array.from({ length: options.processes }, (_, i) =>
        runClient({
          address: addresses.estimator!,
          streams: split(options.streams, options.processes, i),
          unaryClients: split(options.unary, options.processes, i),
          batchRows: 100,
          intervalMs: 50,
          unaryIntervalMs: 20,
          durationMs,
          seed: i + 1,
        }),
      ),
    );
    clearInterval(sampler);
    stopReloads.abort();
    const { publishMs, failed: failedPublishes, events } = await reloads;
    const seconds = (performance.now() - startMs) / 1000;

    const stream = mergeHistograms(results.map((r) => r.streamLatency));
    const unary = mergeHistograms(results.map((r) => r.unaryLatency));
    const title =
      `Soak: ${options.streams} EstimateStream streams (100-row batches every 50 ms) + ${options.unary} unary Estimate clients ` +
      `(100 rows every 20 ms) from ${options.processes} client processes, ${options.minutes} min, ${publishMs.length} hot reloads`;
    printTable(
      title,
      ["kind", "ok calls", "calls/s", "rows/s", "p50 ms", "p99 ms"],
      [
        ["stream batches", stream],
        ["unary Estimate", unary],
      ].map(([label, histogram]) => {
        const count = histogramCount(histogram as typeof stream);
        return [
          label as string,
          String(count),
          (count / seconds).toFixed(0),
          ((count * 100) / seconds).toFixed(0),
          ms(histogramPercentile(histogram as typeof stream, 50)),
          ms(histogramPercentile(histogram as typeof stream, 99)),
        ];
      }),
    );
    const errors: Record<string, number> = {};
    for (const r of results) for (const [code, count] of Object.entries(r.errors)) errors[code] = (errors[code] ?? 0) + count;
    if (failedPublishes > 0) errors["publish failed"] = failedPublishes;
    const skipped = results.reduce((sum, r) => sum + r.skippedTicks, 0);
    printTable(
      "Errors by status code (per-batch stream errors, failed streams, failed unary calls, failed publishes)",
      ["status", "count"],
      Object.keys(errors).length === 0 ? [["none", "0"]] : Object.entries(errors).map(([code, count]) => [code, String(count)]),
    );
    const sortedPublish = [...publishMs].sort((a, b) => a - b);
    console.log(
      `\nhot reloads: ${publishMs.length} publishes of the served models (${events} model events), median ` +
        `${ms(sortedPublish[Math.floor(sortedPublish.length / 2)] ?? Number.NaN)} ms each; ` +
        `ticks skipped (a stream with ${20} batches unanswered): ${skipped}`,
    );

    const warmupSeconds = (durationMs / 1000) * 0.2;
    const trend = rssTrend(samples, warmupSeconds);
    printTable(
      `Server RSS (idle before load: ${(idleRssBytes / MiB).toFixed(0)} MiB), sampled every ${(sampleEveryMs / 1000).toFixed(0)} s`,
      ["t s", "RSS MiB", "vs first third"],
      samples.map((s) => [
        s.atSeconds.toFixed(0),
        (s.rssBytes / MiB).toFixed(0),
        s.atSeconds < warmupSeconds ? "warm-up" : (s.rssBytes / trend.firstThirdBytes).toFixed(2),
      ]),
    );
    console.log(
      `\nRSS verdict: ${trend.flat ? "FLAT" : "GROWING"}: last third median ${(trend.lastThirdBytes / MiB).toFixed(0)} MiB / ` +
        `first third ${(trend.firstThirdBytes / MiB).toFixed(0)} MiB = ${trend.ratio.toFixed(2)} ` +
        `(limit 1.15, ${trend.comparedSamples} samples after ${warmupSeconds.toFixed(0)} s warm-up)`,
    );
  } finally {
    child.kill("SIGTERM");
    await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.on("exit", resolve)));
    await rm(dir, { recursive: true, force: true });
  }
}
