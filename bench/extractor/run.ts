// Extractor end to end: a synthetic Prometheus response of 200 containers x 8 features x 1,200 samples
// plus node energy (rapl-sysfs: 4 components x 2 packages x 2 modes; acpi platform), streamed through
// the real gRPC ExtractorService on 127.0.0.1 (Extract: response chunks in, table chunks out).
// Reports median wall time, the process' peak RSS and peak heap, the in-process split (parse vs
// extract), and the rate step alone: wasm-core's counterToRate against its plain-TS twin.
import { F64Buffer, counterToRateInWasm } from "../../wasm-core/src/index.js";
import { PrometheusResponseStream, parsePrometheusResponse } from "../../services/domain/prometheus-response.js";
import { extract } from "../../services/extractor/domain/extract.js";
import { createExtractorClient } from "../../services/extractor/client.js";
import { startExtractor } from "../../services/extractor/main.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { CHUNK_BYTES } from "../../services/kit/transport/message-limits.js";
import { ExtractorKind, TableLevel } from "../../services/generated/kepler/model/v1/types.js";
import { counterToRateBaseline } from "../baseline/counter-to-rate.js";
import { measure, ms, printTable } from "../support/measure.js";
import { BASE_SHAPE, SYNTHETIC_FEATURES as FEATURES, syntheticResponsePieces } from "../support/synthetic-response.js";

const { containers: CONTAINERS, samples: SAMPLES } = BASE_SHAPE;

/** Samples RSS and heap every few ms while `body` runs; returns the peaks in MiB. */
async function withMemoryPeaks<T>(body: () => Promise<T>): Promise<{ result: T; rssMiB: number; heapMiB: number }> {
  let rss = 0;
  let heap = 0;
  const sample = () => {
    const usage = process.memoryUsage();
    rss = Math.max(rss, usage.rss);
    heap = Math.max(heap, usage.heapUsed + usage.external + usage.arrayBuffers);
  };
  const timer = setInterval(sample, 5);
  try {
    const result = await body();
    sample();
    return { result, rssMiB: rss / 2 ** 20, heapMiB: heap / 2 ** 20 };
  } finally {
    clearInterval(timer);
  }
}

export default async function run(): Promise<void> {
  const text = Buffer.from([...syntheticResponsePieces(BASE_SHAPE)].join(""));
  const parsedOnce = parsePrometheusResponse(text);
  const sampleCount = [...parsedOnce.metrics.values()].reduce((total, metric) => total + metric.values.length, 0);
  process.stdout.write(
    `synthetic response: ${CONTAINERS} containers x ${FEATURES.length} features x ${SAMPLES} samples + node energy; ${sampleCount} samples, ${(text.length / 2 ** 20).toFixed(1)} MiB JSON\n`,
  );

  const server = await startExtractor(
    { host: "127.0.0.1", port: 0, prometheusTimeoutMs: 10_000, prometheusAllowlist: [], workerThreads: 1 },
    { logger: silentLogger() },
  );
  const peer = createExtractorClient(server.address);
  const options = {
    energySource: "rapl-sysfs",
    featureGroup: "WorkloadOnly",
    extractor: ExtractorKind.EXTRACTOR_KIND_DEFAULT,
    useVmMetrics: false,
    thirdPartyMetricNames: [],
  };
  async function* requests(level: TableLevel) {
    yield { content: { $case: "options" as const, value: { ...options, level } } };
    for (let start = 0; start < text.length; start += CHUNK_BYTES) {
      yield { content: { $case: "responseChunk" as const, value: text.subarray(start, start + CHUNK_BYTES) } };
    }
  }
  const callOnce = async (level: TableLevel) => {
    let rows = 0;
    for await (const message of peer.client.extract(requests(level))) {
      if (message.content?.$case === "chunk") rows += message.content.value.rowCount;
    }
    return rows;
  };

  const rows: string[][] = [];
  try {
    for (const [label, level] of [
      ["node", TableLevel.TABLE_LEVEL_NODE],
      ["container", TableLevel.TABLE_LEVEL_CONTAINER],
    ] as const) {
      const tableRows = await callOnce(level);
      const { result: timing, rssMiB, heapMiB } = await withMemoryPeaks(() => measure(() => callOnce(level), 5, 1));
      rows.push([
        `gRPC Extract, ${label} table`,
        String(tableRows),
        ms(timing.medianMs),
        ms(timing.minMs),
        rssMiB.toFixed(0),
        heapMiB.toFixed(0),
      ]);
    }
  } finally {
    peer.close();
    await server.close();
  }

  const parse = await measure(() => parsePrometheusResponse(text), 5, 1);
  rows.push(["in-process: parse JSON bytes", "-", ms(parse.medianMs), ms(parse.minMs), "-", "-"]);
  const streamed = await measure(
    () => {
      const stream = new PrometheusResponseStream();
      for (let start = 0; start < text.length; start += CHUNK_BYTES) stream.push(text.subarray(start, start + CHUNK_BYTES));
      return stream.finish();
    },
    5,
    1,
  );
  rows.push(["in-process: stream-parse in request chunks", "-", ms(streamed.medianMs), ms(streamed.minMs), "-", "-"]);
  for (const level of ["node", "container"] as const) {
    const domain = await measure(
      () => extract(parsedOnce, { energySource: "rapl-sysfs", featureGroup: "WorkloadOnly", level, extractor: "default" }),
      5,
      1,
    );
    rows.push([`in-process: extract (${level})`, "-", ms(domain.medianMs), ms(domain.minMs), "-", "-"]);
  }
  printTable(
    `extractor end to end (median of 5; peak RSS/heap sampled every 5 ms during the timed runs; maxRSS of the process ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB)`,
    ["case", "rows", "median ms", "min ms", "peak RSS MiB", "peak heap+external MiB"],
    rows,
  );

  // The rate step alone, on the same 1,600 container counters: wasm kernel on resident data vs plain TS.
  const counters = [...parsedOnce.metrics.values()].filter((metric) => metric.name.startsWith("kepler_container_"));
  const timestamps = new Float64Array(counters.flatMap((metric) => Array.from(metric.timestamps)));
  const values = new Float64Array(counters.flatMap((metric) => Array.from(metric.values)));
  const out = new Float64Array(values.length);
  const t = F64Buffer.from(timestamps);
  const v = F64Buffer.from(values);
  const o = F64Buffer.alloc(values.length);
  const segments = counters.length * CONTAINERS;
  const baseline = await measure(() => {
    for (let s = 0; s < segments; s++) {
      const range = [s * SAMPLES, (s + 1) * SAMPLES] as const;
      counterToRateBaseline(timestamps.subarray(...range), values.subarray(...range), out.subarray(...range));
    }
  }, 15);
  const wasm = await measure(() => counterToRateInWasm(t, v, o, "repeat-previous"), 15);
  for (const buffer of [t, v, o]) buffer.free();
  printTable(
    `rate step alone: ${segments} counters x ${SAMPLES} samples (median of 15)`,
    ["path", "median ms", "min ms"],
    [
      ["plain TS (bench/baseline/counter-to-rate.ts)", ms(baseline.medianMs), ms(baseline.minMs)],
      ["wasm-core counterToRate, resident", ms(wasm.medianMs), ms(wasm.minMs)],
    ],
  );
}
