// Integration: a real Prometheus (Debian package) backfilled with the recorded coremark data; the
// extractor's live path (discover kepler_* metrics, query_range, extract) must give the same tables as
// the inline path on the saved response, for the same window.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runCli } from "../../cli/main.js";
import { collectChunks } from "../../services/kit/transport/table-codec.js";
import type { DataTable } from "../../services/domain/data-table.js";
import { parsePrometheusResponse } from "../../services/domain/prometheus-response.js";
import { type ExtractOptions, extract } from "../../services/extractor/domain/extract.js";
import { readPrometheusWindow } from "../../services/extractor/domain/read-prometheus-window.js";
import { createExtractorClient } from "../../services/extractor/client.js";
import { startExtractor } from "../../services/extractor/main.js";
import type { ServerHandle } from "../../services/kit/transport/grpc-server.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { ExtractorKind, TableLevel } from "../../services/generated/kepler/model/v1/types.js";
import type { TableChunk } from "../../services/generated/kepler/model/v1/table.js";
import { createPrometheusClient } from "../../services/prometheus/prometheus-client.js";
import { recordedResponseText } from "../support/extractor-fixtures.js";
import { COREMARK_WINDOW, type SavedResponseDocument, describeWithPrometheus } from "../support/prometheus.js";
import { useCoremarkPrometheus } from "../support/coremark-prometheus.js";

const { stepSeconds: STEP_SECONDS, first: FIRST, last: LAST } = COREMARK_WINDOW;
const text = recordedResponseText("coremark");
const saved = JSON.parse(text) as SavedResponseDocument;
// Its lookback is 1s: backfilled series carry no staleness markers, and a container whose series ended would
// otherwise be repeated for 5 minutes (its `command`-split series would then overlap).
const coremark = useCoremarkPrometheus();

let server: ServerHandle;

beforeAll(async () => {
  server = await startExtractor(
    { host: "127.0.0.1", port: 0, prometheusTimeoutMs: 10_000, prometheusAllowlist: [coremark.baseUrl], workerThreads: 1 },
    { logger: silentLogger() },
  );
}, 120_000);

afterAll(async () => {
  await server?.close();
});

const window = () => ({
  baseUrl: coremark.baseUrl,
  startSeconds: FIRST + coremark.shiftSeconds,
  endSeconds: LAST + coremark.shiftSeconds,
  stepSeconds: STEP_SECONDS,
  metricPrefix: "kepler_",
  thirdPartyMetrics: [],
  timeoutMs: 10_000,
});

function expectSameTable(live: DataTable, inline: DataTable): void {
  expect(live.columnNames).toEqual(inline.columnNames);
  expect(live.rowCount).toBe(inline.rowCount);
  expect(Array.from(live.timestamps, (t) => t - coremark.shiftSeconds)).toEqual(Array.from(inline.timestamps));
  expect(Array.from(live.values)).toEqual(Array.from(inline.values));
  expect(live.rowIds).toEqual(inline.rowIds);
}

describeWithPrometheus("extractor against a real Prometheus with backfilled coremark data", () => {
  const inline = parsePrometheusResponse(text);

  it("discovers the same kepler_* metrics with the same sample counts", async () => {
    const live = await readPrometheusWindow(window());
    expect([...live.metrics.keys()].sort()).toEqual(Object.keys(saved).sort());
    for (const [name, metric] of inline.metrics) expect(live.metrics.get(name)?.values.length, name).toBe(metric.values.length);
  });

  for (const options of [
    { energySource: "rapl-sysfs", featureGroup: "CounterOnly", level: "node", extractor: "default" },
    { energySource: "acpi", featureGroup: "CounterIRQCombined", level: "container", extractor: "default" },
  ] satisfies ExtractOptions[]) {
    it(`live ${options.energySource}/${options.featureGroup}/${options.level} table equals the inline one (timestamps shifted back)`, async () => {
      const live = extract(await readPrometheusWindow(window()), options);
      const expected = extract(inline, options);
      expectSameTable(live.table, expected.table);
      expect(live.correlations).toEqual(expected.correlations);
    });
  }

  it("ExtractFromPrometheus over gRPC streams the same table as Extract of the saved response", async () => {
    const peer = createExtractorClient(server.address);
    try {
      const options = {
        energySource: "rapl-sysfs",
        featureGroup: "CounterIRQCombined",
        level: TableLevel.TABLE_LEVEL_NODE,
        extractor: ExtractorKind.EXTRACTOR_KIND_DEFAULT,
        useVmMetrics: false,
        thirdPartyMetricNames: [],
      };
      const chunks: TableChunk[] = [];
      const stream = peer.client.extractFromPrometheus({
        options,
        window: coremark.liveWindow(),
      });
      for await (const message of stream) if (message.content?.$case === "chunk") chunks.push(message.content.value);
      const live = await collectChunks(chunks);
      expectSameTable(
        live,
        extract(inline, { energySource: "rapl-sysfs", featureGroup: "CounterIRQCombined", level: "node", extractor: "default" })
          .table,
      );
    } finally {
      peer.close();
    }
  });

  it("splits a long window into sub-ranges of at most N points and merges them without gaps or repeats", async () => {
    const client = createPrometheusClient({ baseUrl: coremark.baseUrl, timeoutMs: 10_000, maxPointsPerSeries: 50 });
    const whole = createPrometheusClient({ baseUrl: coremark.baseUrl, timeoutMs: 10_000 });
    const split = await client.queryRange(
      "kepler_node_package_joules_total",
      FIRST + coremark.shiftSeconds,
      LAST + coremark.shiftSeconds,
      STEP_SECONDS,
    );
    const single = await whole.queryRange(
      "kepler_node_package_joules_total",
      FIRST + coremark.shiftSeconds,
      LAST + coremark.shiftSeconds,
      STEP_SECONDS,
    );
    expect(split).toHaveLength(4);
    expect(split.map((series) => series.values.length)).toEqual([188, 188, 188, 188]);
    expect(split).toEqual(single);
  });

  it("`kepler-model query` saves the window; extracting the saved file gives the inline table", async () => {
    const folder = await mkdtemp(join(tmpdir(), "cli-query-"));
    try {
      const out = join(folder, "response.json");
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      let printed = "";
      stdout.on("data", (data: Buffer) => {
        printed += data.toString();
      });
      const argv = [
        "query",
        "--server",
        coremark.baseUrl,
        "--start",
        String(FIRST + coremark.shiftSeconds),
        "--end",
        String(LAST + coremark.shiftSeconds),
        "--out",
        out,
      ];
      expect(await runCli(argv, { stdout, stderr, env: {} })).toBe(0);
      expect(printed).toContain(`wrote ${out}: ${Object.keys(saved).length} metrics`);
      const written = parsePrometheusResponse(await readFile(out));
      const options = {
        energySource: "acpi",
        featureGroup: "CounterOnly",
        level: "container",
        extractor: "default",
      } satisfies ExtractOptions;
      expectSameTable(extract(written, options).table, extract(inline, options).table);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it("QueryPrometheus streams the saved JSON and ListValidFeatureGroups reads a live window", async () => {
    const peer = createExtractorClient(server.address);
    try {
      const liveWindow = coremark.liveWindow();
      const parts: Uint8Array[] = [];
      let summary: { metrics: Array<{ metricName: string; sampleCount: number }>; responseSizeBytes: number } | undefined;
      for await (const message of peer.client.queryPrometheus({ window: liveWindow })) {
        if (message.content?.$case === "responseChunk") parts.push(message.content.value);
        else if (message.content?.$case === "summary") summary = message.content.value;
      }
      const bytes = Buffer.concat(parts);
      expect(parts.length).toBeGreaterThan(1);
      expect(summary!.responseSizeBytes).toBe(bytes.length);
      const written = parsePrometheusResponse(bytes);
      expect(summary!.metrics.map((metric) => metric.metricName)).toEqual(Object.keys(saved).sort());
      for (const metric of summary!.metrics)
        expect(metric.sampleCount).toBe(inline.metrics.get(metric.metricName)!.values.length);
      expect(written.metrics.size).toBe(Object.keys(saved).length);

      async function* options() {
        yield {
          content: { $case: "options" as const, value: { window: liveWindow, useVmMetrics: false, thirdPartyMetricNames: [] } },
        };
      }
      const groups = await peer.client.listValidFeatureGroups(options());
      expect(groups.validFeatureGroups).toEqual(["CounterOnly", "CounterIRQCombined"]);
      expect(groups.energySources).toEqual(["acpi", "rapl-sysfs"]);
    } finally {
      peer.close();
    }
  });
});
