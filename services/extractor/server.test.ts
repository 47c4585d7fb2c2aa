// Server test: the real extractor gRPC server on 127.0.0.1:0, called with the generated client.
import { createHash } from "node:crypto";
import { Status } from "nice-grpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readGoldenCsv, recordedResponseText, relativeError } from "../../test/support/extractor-fixtures.js";
import type { ExtractOptions, ExtractResponse, ExtractSummary } from "../generated/kepler/model/v1/extractor_service.js";
import type { TableChunk } from "../generated/kepler/model/v1/table.js";
import { ExtractorKind, TableLevel } from "../generated/kepler/model/v1/types.js";
import type { ServerHandle } from "../kit/transport/grpc-server.js";
import { silentLogger } from "../kit/observe/logger.js";
import { collectChunks } from "../kit/transport/table-codec.js";
import { createExtractorClient } from "./client.js";
import { startExtractor } from "./main.js";

let server: ServerHandle;
let peer: ReturnType<typeof createExtractorClient>;

beforeAll(async () => {
  server = await startExtractor(
    { host: "127.0.0.1", port: 0, prometheusTimeoutMs: 2_000, prometheusAllowlist: ["http://127.0.0.1:9"], workerThreads: 1 },
    { logger: silentLogger() },
  );
  peer = createExtractorClient(server.address);
});

afterAll(async () => {
  peer.close();
  await server.close();
});

async function* requestsFor(text: string, options: Partial<ExtractOptions>) {
  yield { content: { $case: "options" as const, value: { ...defaultOptions, ...options } } };
  const bytes = Buffer.from(text, "utf8");
  // Split deliberately inside the text (not on a JSON boundary), 256 KiB per message.
  for (let start = 0; start < bytes.length; start += 256 * 1024) {
    yield { content: { $case: "responseChunk" as const, value: bytes.subarray(start, start + 256 * 1024) } };
  }
}

const defaultOptions = {
  energySource: "rapl-sysfs",
  featureGroup: "CounterOnly",
  level: TableLevel.TABLE_LEVEL_NODE,
  extractor: ExtractorKind.EXTRACTOR_KIND_DEFAULT,
  useVmMetrics: false,
  thirdPartyMetricNames: [],
  responseSha256: "",
};

async function collect(stream: AsyncIterable<ExtractResponse>) {
  const chunks: TableChunk[] = [];
  let summary: ExtractSummary | undefined;
  for await (const message of stream) {
    if (message.content?.$case === "chunk") chunks.push(message.content.value);
    else if (message.content?.$case === "summary") summary = message.content.value;
  }
  return { table: await collectChunks(chunks), summary: summary!, chunkCount: chunks.length };
}

describe("ExtractorService over gRPC", () => {
  it("Extract streams the coremark node table (source `rapl` read as rapl-sysfs) equal to the reference's", async () => {
    const { table, summary } = await collect(peer.client.extract(requestsFor(recordedResponseText("coremark"), {})));
    const golden = readGoldenCsv("extract_abs_rapl-sysfs_CounterOnly.csv");
    expect(["timestamp", ...table.columnNames]).toEqual(golden.header);
    let worst = 0;
    golden.rows.forEach((fields, row) => {
      table.columnNames.forEach((_, column) => {
        worst = Math.max(worst, relativeError(table.values[column * table.rowCount + row]!, Number(fields[column + 1])));
      });
    });
    expect(worst).toBeLessThan(1e-9);
    expect(summary.rowCount).toBe(187);
    expect(summary.powerColumnNames).toEqual(["package_power", "core_power", "uncore_power", "dram_power"]);
    expect(summary.featureNames).toEqual(["cache_miss", "cpu_cycles", "cpu_instructions"]);
    expect(summary.correlationPowerColumnName).toBe("package_power");
    expect(relativeError(summary.correlations[2]!.correlation, 0.9858031397213314)).toBeLessThan(1e-9);
    expect(summary.validFeatureGroups).toEqual(["CounterOnly", "CounterIRQCombined"]);
    expect(summary.validHistoricalFeatureGroups).toEqual(["IRQOnly", "CgroupOnly", "KubeletOnly"]);
  });

  it("Extract streams a container table in several chunks with row ids", async () => {
    const { table, summary } = await collect(
      peer.client.extract(
        requestsFor(recordedResponseText("coremark"), { level: TableLevel.TABLE_LEVEL_CONTAINER, energySource: "acpi" }),
      ),
    );
    expect(table.rowCount).toBe(4342);
    expect(summary.containerCount).toBe(62);
    expect(new Set(table.rowIds).size).toBe(62);
    expect(table.columnNames).toEqual(["cache_miss", "cpu_cycles", "cpu_instructions", "platform_power", "node_type"]);
  });

  it("Extract with the smooth extractor drops the first 29 rows", async () => {
    const { table } = await collect(
      peer.client.extract(requestsFor(recordedResponseText("coremark"), { extractor: ExtractorKind.EXTRACTOR_KIND_SMOOTH })),
    );
    expect(table.rowCount).toBe(187 - 29);
    expect(table.timestamps[0]).toBe(1695361428 + 29 * 3);
  });

  it("answers INVALID_ARGUMENT naming the problem", async () => {
    const cases: Array<[string, Partial<ExtractOptions>, string]> = [
      ["{", {}, "response_chunk: malformed JSON"],
      [
        recordedResponseText("idle"),
        { energySource: "nuclear" },
        'requests[0].options.energy_source: unknown energy source "nuclear"',
      ],
      [
        recordedResponseText("idle"),
        { featureGroup: "Everything" },
        'requests[0].options.feature_group: unknown feature group "Everything"',
      ],
      [recordedResponseText("idle"), { level: TableLevel.TABLE_LEVEL_UNSPECIFIED }, "requests[0].options.level: required"],
      ['{"kepler_container_cpu_cycles_total": []}', {}, "response: missing metric kepler_node_package_joules_total"],
    ];
    for (const [text, options, message] of cases) {
      const error = await collect(peer.client.extract(requestsFor(text, options))).catch((caught: unknown) => caught);
      expect((error as { code: number }).code).toBe(Status.INVALID_ARGUMENT);
      expect((error as Error).message).toContain(message);
    }
  });

  it("ListValidFeatureGroups summarises an inline response", async () => {
    async function* messages() {
      yield {
        content: { $case: "options" as const, value: { useVmMetrics: false, thirdPartyMetricNames: [], responseSha256: "" } },
      };
      yield { content: { $case: "responseChunk" as const, value: Buffer.from(recordedResponseText("idle")) } };
    }
    const answer = await peer.client.listValidFeatureGroups(messages());
    expect(answer.validFeatureGroups).toEqual(["CounterOnly", "BPFOnly", "BPFIRQ", "CounterIRQCombined", "Basic"]);
    expect(answer.energySources).toEqual(["acpi", "rapl-sysfs"]);
    const packageEnergy = answer.metrics.find((metric) => metric.metricName === "kepler_node_package_joules_total");
    expect(packageEnergy).toBeDefined();
    expect(packageEnergy!.sampleCount).toBe(packageEnergy!.seriesCount * 7);
  });

  it("a response named by its SHA-256 is scanned and sent once; later calls reuse it (worker and main thread)", async () => {
    const text = recordedResponseText("coremark");
    const digest = createHash("sha256").update(text).digest("hex");
    const onMain = await startExtractor(
      { host: "127.0.0.1", port: 0, prometheusTimeoutMs: 2_000, prometheusAllowlist: ["http://127.0.0.1:9"], workerThreads: 0 },
      { logger: silentLogger() },
    );
    const mainPeer = createExtractorClient(onMain.address);
    try {
      for (const client of [peer.client, mainPeer.client]) {
        async function* describe() {
          yield {
            content: {
              $case: "options" as const,
              value: { useVmMetrics: false, thirdPartyMetricNames: [], responseSha256: digest },
            },
          };
          yield { content: { $case: "responseChunk" as const, value: Buffer.from(text) } };
        }
        expect((await client.listValidFeatureGroups(describe())).energySources).toEqual(["acpi", "rapl-sysfs"]);
        for (const options of [
          { level: TableLevel.TABLE_LEVEL_NODE },
          { level: TableLevel.TABLE_LEVEL_CONTAINER, energySource: "acpi" },
          { level: TableLevel.TABLE_LEVEL_NODE },
        ]) {
          const sent = await collect(client.extract(requestsFor(text, options)));
          // Twice by digest alone: a kept response is not changed by an extraction.
          for (let round = 0; round < 2; round++) {
            const named = await collect(
              client.extract(
                (async function* () {
                  yield {
                    content: { $case: "options" as const, value: { ...defaultOptions, ...options, responseSha256: digest } },
                  };
                })(),
              ),
            );
            expect(named.table.rowCount).toBe(sent.table.rowCount);
            expect(Array.from(named.table.values)).toEqual(Array.from(sent.table.values));
            expect(named.table.rowIds).toEqual(sent.table.rowIds);
            expect(named.summary).toEqual(sent.summary);
          }
        }
      }
      const failures: Array<[Partial<ExtractOptions>, string, Status, string]> = [
        [{ responseSha256: "f".repeat(64) }, "", Status.FAILED_PRECONDITION, "no longer holds this response: send its chunks"],
        [{ responseSha256: digest.toUpperCase() }, text, Status.INVALID_ARGUMENT, "response_sha256: expected 64 lowercase hex"],
        [{ responseSha256: digest }, recordedResponseText("idle"), Status.INVALID_ARGUMENT, "does not match the SHA-256"],
      ];
      for (const [options, body, code, message] of failures) {
        const error = await collect(peer.client.extract(requestsFor(body, options))).catch((caught: unknown) => caught);
        expect((error as { code: number }).code).toBe(code);
        expect((error as Error).message).toContain(message);
      }
    } finally {
      mainPeer.close();
      await onMain.close();
    }
  });

  it("ExtractFromPrometheus answers UNAVAILABLE when Prometheus cannot be reached", async () => {
    const stream = peer.client.extractFromPrometheus({
      options: { ...defaultOptions },
      window: {
        baseUrl: "http://127.0.0.1:9",
        startTimeSeconds: 1000,
        endTimeSeconds: 2000,
        stepSeconds: 3,
        thirdPartyMetricNames: [],
        metricPrefix: "",
      },
    });
    const error = await collect(stream).catch((caught: unknown) => caught);
    expect((error as { code: number }).code).toBe(Status.UNAVAILABLE);
    expect((error as Error).message).toContain("prometheus: http://127.0.0.1:9 cannot be reached");
  });
});
