// A single-pass reader of the saved-response JSON bytes that decodes the `[ts, "value"]` pairs straight
// into float64 arrays instead of building millions of small JavaScript arrays and strings first
// (JSON.parse of a 40 MB response took seconds and ~700 MB of heap). Everything else (labels, unknown
// keys, wrong shapes) goes through JSON.parse of the value's own bytes, so errors read the same as on
// the object path. Numbers are decoded exactly: up to 15 significant digits as one correctly rounded
// division or multiplication by an exact power of ten (Clinger's fast path), anything else by Number().
// A values list is decoded in wasm (wasm-core SampleListDecoder), where it runs at full speed from the first
// list on: plain numbers there, other value strings ("NaN", 17 digits) here; any other list is read here
// whole. Results and errors are the same either way.
import { SampleListDecoder } from "../../wasm-core/src/index.js";
import { InvalidInputError } from "./errors.js";
import {
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  OPEN_BRACE,
  OPEN_BRACKET,
  PrometheusJsonCursor,
  QUOTE,
} from "./prometheus-json-cursor.js";
import type { PrometheusResponseBuilder } from "./prometheus-response-builder.js";
import { describe, parseSampleValue } from "./prometheus-sample-checks.js";

/** Reads the whole response text into `builder`; InvalidInputError naming the place on any problem. */
export function scanPrometheusResponse(bytes: Uint8Array, builder: PrometheusResponseBuilder, field: string): void {
  new Scanner(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), builder, field).scanDocument();
}

/** Decoded samples of one series. */
interface SeriesSamples {
  timestamps: Float64Array;
  values: Float64Array;
}

/**
 * Reads the response text chunk by chunk as it arrives (gRPC messages, file or HTTP streams), holding at
 * most the one series not yet complete: peak memory follows the parsed arrays, not the JSON text.
 */
export class PrometheusResponseStreamScanner {
  private readonly scanner: Scanner;

  constructor(builder: PrometheusResponseBuilder, field: string) {
    this.scanner = new Scanner(Buffer.alloc(0), builder, field);
    this.scanner.startStreaming();
  }

  push(chunk: Uint8Array): void {
    if (chunk.byteLength > 0) this.scanner.pushBytes(chunk);
  }

  /** The last chunk is in: InvalidInputError when the document is incomplete or malformed. */
  end(): void {
    this.scanner.endBytes();
  }
}

class Scanner extends PrometheusJsonCursor {
  // Holds wasm memory only while a call scans (released at the end of each): an abandoned stream keeps none.
  private readonly decoder = new SampleListDecoder();

  constructor(
    buf: Buffer,
    private readonly builder: PrometheusResponseBuilder,
    field: string,
  ) {
    super(buf, field);
  }

  scanDocument(): void {
    this.decoder.setSource(this.buf);
    try {
      if (!this.documentSteps().next().done) throw new Error("the whole-input scan waited for more input");
    } finally {
      this.decoder.release();
    }
  }

  /** Appends the next bytes (streaming mode): drops what is consumed, scans every series now complete. */
  pushBytes(chunk: Uint8Array): void {
    this.lastChunk = chunk;
    this.base += this.pos;
    this.buf = Buffer.concat([this.buf.subarray(this.pos), chunk]);
    this.pos = 0;
    this.decoder.setSource(this.buf);
    this.steps ??= this.documentSteps();
    try {
      this.steps.next();
    } finally {
      this.decoder.release();
    }
  }

  /** Ends the input (streaming mode): scans the rest; throws when the document is incomplete. */
  endBytes(): void {
    this.ended = true;
    this.decoder.setSource(this.buf);
    this.steps ??= this.documentSteps();
    try {
      if (!this.steps.next().done) throw new Error("the scan waited for more input after the end");
    } finally {
      this.decoder.release();
    }
  }

  // Streaming: whether the last chunk is in, and the chunk pushed last (base holds the offset of buf[0]).
  // A series (or metric name) is scanned speculatively; it can only succeed once its closing brace
  // (quote) is in the buffer, and everything before that is too, so no token is read half-received.
  // A failed attempt rewinds and is retried when a chunk brings that closing byte; only the end of the
  // input makes a failure final. Only one partial series is held.
  private ended = true;
  private lastChunk: Uint8Array = new Uint8Array(0);
  private steps: Generator<void, void> | undefined;

  /** Streaming mode from here on. */
  startStreaming(): void {
    this.ended = false;
  }

  /** Runs `read` from pos; while the input is open, a failure rewinds and waits for a chunk holding `closing`. */
  private *attempt<T>(read: () => T, closing: number): Generator<void, T> {
    for (;;) {
      const start = this.pos;
      try {
        return read();
      } catch (error) {
        if (this.ended) throw error;
        this.pos = start;
        do yield;
        while (!this.ended && !this.lastChunk.includes(closing));
      }
    }
  }

  /** Waits for the whole input (error paths that describe a value of unknown length). */
  private *untilEnded(): Generator<void, void> {
    while (!this.ended) yield;
  }

  /** Skips whitespace; waits (yields) until the next top-level token has arrived in full. */
  private *need(): Generator<void, void> {
    for (;;) {
      this.skipWhitespace();
      if (this.ended || this.pos < this.buf.length) return;
      yield;
    }
  }

  private *documentSteps(): Generator<void, void> {
    yield* this.need();
    if (this.pos >= this.buf.length)
      throw new InvalidInputError(this.field, "empty response: expected a JSON object of metric names");
    if (this.buf[this.pos] !== OPEN_BRACE) {
      yield* this.untilEnded();
      const value = this.genericValue();
      throw new InvalidInputError(
        this.field,
        `expected a JSON object mapping metric names to series lists, got ${describe(value)}`,
      );
    }
    this.pos++;
    yield* this.need();
    if (this.buf[this.pos] === CLOSE_BRACE) {
      this.pos++;
    } else {
      for (;;) {
        yield* this.need();
        const name = yield* this.attempt(() => this.string(), QUOTE);
        yield* this.need();
        this.expect(COLON, "':'");
        yield* this.metricSteps(name);
        yield* this.need();
        if (this.listEnd(CLOSE_BRACE)) break;
      }
    }
    while (!this.ended) {
      this.skipWhitespace();
      if (this.pos < this.buf.length) break;
      yield;
    }
    this.skipWhitespace();
    if (this.pos < this.buf.length) this.malformed("end of input after the top-level object");
  }

  private *metricSteps(name: string): Generator<void, void> {
    const path = `${this.field}.${name}`;
    yield* this.need();
    if (this.buf[this.pos] !== OPEN_BRACKET) {
      yield* this.untilEnded();
      throw new InvalidInputError(path, `expected a list of series, got ${describe(this.genericValue())}`);
    }
    this.builder.addMetric(name);
    this.pos++;
    yield* this.need();
    if (this.buf[this.pos] === CLOSE_BRACKET) {
      this.pos++;
      return;
    }
    for (let index = 0; ; index++) {
      yield* this.need();
      yield* this.attempt(() => this.series(name, `${path}[${index}]`), CLOSE_BRACE);
      yield* this.need();
      if (this.listEnd(CLOSE_BRACKET)) return;
    }
  }

  private series(name: string, path: string): void {
    this.skipWhitespace();
    if (this.buf[this.pos] !== OPEN_BRACE) {
      throw new InvalidInputError(
        path,
        `expected a series object {"metric": {...}, "values": [...]}, got ${describe(this.genericValue())}`,
      );
    }
    this.pos++;
    let labels: Record<string, string> | undefined;
    let samples: SeriesSamples | undefined;
    this.skipWhitespace();
    if (this.buf[this.pos] === CLOSE_BRACE) {
      this.pos++;
    } else {
      for (;;) {
        const key = this.string();
        this.expect(COLON, "':'");
        if (key === "metric") labels = this.labels(`${path}.metric`);
        else if (key === "values") samples = this.samples(`${path}.values`);
        else this.genericValue();
        if (this.listEnd(CLOSE_BRACE)) break;
      }
    }
    if (labels === undefined) throw new InvalidInputError(`${path}.metric`, "expected an object of labels, got nothing");
    if (samples === undefined)
      throw new InvalidInputError(`${path}.values`, 'expected a list of [timestamp, "value"] pairs, got nothing');
    this.builder.addParsedSeries(name, labels, samples.timestamps, samples.values, path);
  }

  /** Decodes a values list: in wasm when it is in the plain form, else here. */
  private samples(path: string): SeriesSamples {
    this.skipWhitespace();
    if (this.buf[this.pos] !== OPEN_BRACKET) {
      throw new InvalidInputError(path, `expected a list of [timestamp, "value"] pairs, got ${describe(this.genericValue())}`);
    }
    const decoded = this.decoder.decode(this.pos);
    if (typeof decoded === "object") {
      const others = decoded.otherValues;
      for (let k = 0; k < others.length; k += 3) {
        const n = others[k]!;
        decoded.values[n] = parseSampleValue(this.buf.toString("utf8", others[k + 1], others[k + 2]), `${path}[${n}][1]`);
      }
      this.pos = decoded.end;
      return decoded;
    }
    // A stream's list not complete yet: the series is read again when more has arrived (attempt), so it is
    // not read here to its end first. At the end of the input the reading below words the error.
    if (decoded === "incomplete" && !this.ended) this.malformed("the rest of the values list", this.buf.length);
    const count = this.samplesHere(path);
    return { timestamps: this.timestamps.slice(0, count), values: this.values.slice(0, count) };
  }
}
