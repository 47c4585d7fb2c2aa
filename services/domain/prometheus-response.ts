// The saved Prometheus range-query response the reference reads and writes (spec §1.3):
// `{metric_name: [{"metric": {labels}, "values": [[ts_seconds, "value"], ...]}, ...]}`, i.e. the
// `data.result` of one query_range per metric. Parsed into packed float64 arrays per metric, so the
// extractor can copy a metric into wasm memory in one bulk copy.
import { createReadStream } from "node:fs";
import { createGunzip } from "node:zlib";
import { InvalidInputError } from "./errors.js";
import { PrometheusResponseBuilder } from "./prometheus-response-builder.js";
import { PrometheusResponseStreamScanner, scanPrometheusResponse } from "./prometheus-response-scanner.js";
import { describe } from "./prometheus-sample-checks.js";
import type { PrometheusResponse } from "./prometheus-response-types.js";

export type { PrometheusMetric, PrometheusResponse, PrometheusSeries } from "./prometheus-response-types.js";
export { PrometheusResponseBuilder } from "./prometheus-response-builder.js";

/** Total samples of a metric (0 when absent): the reference CLI's `len(query_results[q])`. */
export function sampleCount(response: PrometheusResponse, metricName: string): number {
  return response.metrics.get(metricName)?.timestamps.length ?? 0;
}

/** Default upper bound on an inline response's size: 1 GiB of JSON text. */
const MAX_RESPONSE_BYTES = 1024 * 1024 * 1024;

/**
 * Parses a response while its byte chunks arrive (split anywhere): each series is packed into float64
 * arrays as soon as its closing brace is in, so the JSON text is never held whole.
 */
export class PrometheusResponseStream {
  private readonly builder: PrometheusResponseBuilder;
  private readonly scanner: PrometheusResponseStreamScanner;
  private size = 0;

  constructor(
    private readonly field = "response",
    private readonly maxBytes = MAX_RESPONSE_BYTES,
  ) {
    this.builder = new PrometheusResponseBuilder(field);
    this.scanner = new PrometheusResponseStreamScanner(this.builder, field);
  }

  /** Scans the next bytes of the JSON text; InvalidInputError as soon as a complete part is wrong. */
  push(chunk: Uint8Array): void {
    this.size += chunk.byteLength;
    if (this.size > this.maxBytes) {
      throw new InvalidInputError(this.field, `response is larger than the limit of ${this.maxBytes} bytes`);
    }
    this.scanner.push(chunk);
  }

  /** Bytes received so far. */
  get receivedBytes(): number {
    return this.size;
  }

  /** The last chunk is in: the parsed response; InvalidInputError for an incomplete or malformed one. */
  finish(): PrometheusResponse {
    this.scanner.end();
    return this.builder.build();
  }
}

const READ_CHUNK_BYTES = 1 << 20;

/** Parses a saved-response file (`.gz` decompressed on the fly) chunk by chunk. */
export async function readPrometheusResponseFile(path: string, field = "response"): Promise<PrometheusResponse> {
  const stream = new PrometheusResponseStream(field);
  // 1 MiB reads: a series is then rarely split across reads, and one that is gets re-read less often.
  const file = createReadStream(path, { highWaterMark: READ_CHUNK_BYTES });
  const bytes: AsyncIterable<Buffer> = path.endsWith(".gz") ? file.pipe(createGunzip({ chunkSize: READ_CHUNK_BYTES })) : file;
  for await (const chunk of bytes) stream.push(chunk);
  return stream.finish();
}

/**
 * Parses the saved-response JSON text (bytes or a string, read by a single-pass byte scanner) or an
 * already parsed object, and validates its shape.
 */
export function parsePrometheusResponse(input: string | Uint8Array | unknown, field = "response"): PrometheusResponse {
  const builder = new PrometheusResponseBuilder(field);
  if (typeof input === "string" || input instanceof Uint8Array) {
    scanPrometheusResponse(typeof input === "string" ? Buffer.from(input, "utf8") : input, builder, field);
    return builder.build();
  }
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    throw new InvalidInputError(field, `expected a JSON object mapping metric names to series lists, got ${describe(input)}`);
  }
  for (const [name, seriesList] of Object.entries(input as Record<string, unknown>)) {
    builder.addMetricJson(name, seriesList);
  }
  return builder.build();
}
