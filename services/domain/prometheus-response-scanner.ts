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
  type PrometheusResponseBuilder,
  assertLabels,
  assertTimestamp,
  describe,
  parseSampleValue,
} from "./prometheus-response.js";

const POWERS_OF_TEN = Array.from({ length: 23 }, (_, k) => 10 ** k);
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

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

class Scanner {
  private pos = 0;
  private timestamps = new Float64Array(1024);
  private values = new Float64Array(1024);
  // Holds wasm memory only while a call scans (released at the end of each): an abandoned stream keeps none.
  private readonly decoder = new SampleListDecoder();

  constructor(
    private buf: Buffer,
    private readonly builder: PrometheusResponseBuilder,
    private readonly field: string,
  ) {}

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

  // Streaming: the absolute offset of buf[0], whether the last chunk is in, and the chunk pushed last.
  // A series (or metric name) is scanned speculatively; it can only succeed once its closing brace
  // (quote) is in the buffer, and everything before that is too, so no token is read half-received.
  // A failed attempt rewinds and is retried when a chunk brings that closing byte; only the end of the
  // input makes a failure final. Only one partial series is held.
  private base = 0;
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

  /** Decodes the values list at pos into the scratch arrays; returns the sample count. */
  private samplesHere(path: string): number {
    this.pos++;
    this.skipWhitespace();
    if (this.buf[this.pos] === CLOSE_BRACKET) {
      this.pos++;
      return 0;
    }
    let n = 0;
    for (; ; n++) {
      if (n === this.timestamps.length) this.grow();
      this.skipWhitespace();
      const pairStart = this.pos;
      if (this.buf[this.pos] !== OPEN_BRACKET) this.notPair(path, n, pairStart);
      this.pos++;
      this.skipWhitespace();
      const timestampStart = this.pos;
      const timestamp = this.number();
      if (timestamp === undefined) {
        if (this.buf[this.pos] === CLOSE_BRACKET) this.notPair(path, n, pairStart);
        this.pos = timestampStart;
        this.timestamps[n] = assertTimestamp(this.genericValue(), `${path}[${n}][0]`);
      } else {
        this.timestamps[n] = timestamp;
      }
      this.skipWhitespace();
      if (this.buf[this.pos] !== COMMA) this.notPair(path, n, pairStart);
      this.pos++;
      this.skipWhitespace();
      this.values[n] = this.sampleValue(path, n);
      this.skipWhitespace();
      if (this.buf[this.pos] !== CLOSE_BRACKET) this.notPair(path, n, pairStart);
      this.pos++;
      if (this.listEnd(CLOSE_BRACKET)) return n + 1;
    }
  }

  // Error paths build their messages only when needed: nothing is allocated per sample.
  private notPair(path: string, n: number, pairStart: number): never {
    this.pos = pairStart;
    throw new InvalidInputError(`${path}[${n}]`, `expected a [timestamp, "value"] pair, got ${describe(this.genericValue())}`);
  }

  private sampleValue(path: string, n: number): number {
    if (this.buf[this.pos] === QUOTE) {
      const start = this.pos + 1;
      let end = start;
      while (end < this.buf.length && this.buf[end] !== QUOTE && this.buf[end] !== BACKSLASH) end++;
      if (this.buf[end] === QUOTE) {
        this.pos = start;
        const fast = this.number();
        if (fast !== undefined && this.pos === end) {
          this.pos = end + 1;
          return fast;
        }
        this.pos = end + 1;
        return parseSampleValue(this.buf.toString("utf8", start, end), `${path}[${n}][1]`);
      }
      this.pos = start - 1;
    }
    return parseSampleValue(this.genericValue(), `${path}[${n}][1]`);
  }

  /** A JSON number token at pos, decoded exactly; undefined (pos unchanged) when there is none. */
  private number(): number | undefined {
    const buf = this.buf;
    const start = this.pos;
    let i = start;
    let negative = false;
    if (buf[i] === 0x2d) {
      negative = true;
      i++;
    }
    let mantissa = 0;
    let digits = 0;
    let fraction = 0;
    let simple = true;
    let seenDot = false;
    let any = false;
    for (; i < buf.length; i++) {
      const c = buf[i]!;
      if (c >= 0x30 && c <= 0x39) {
        any = true;
        if (digits > 0 || c !== 0x30) digits++;
        mantissa = mantissa * 10 + (c - 0x30);
        if (seenDot) fraction++;
      } else if (c === 0x2e && !seenDot) {
        seenDot = true;
      } else if (c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d) {
        simple = false;
      } else {
        break;
      }
    }
    if (!any) return undefined;
    this.pos = i;
    if (simple && digits <= 15 && fraction <= 22) {
      const value = fraction === 0 ? mantissa : mantissa / POWERS_OF_TEN[fraction]!;
      return negative ? -value : value;
    }
    const value = Number(buf.toString("latin1", start, i));
    if (Number.isNaN(value)) {
      this.pos = start;
      return undefined;
    }
    return value;
  }

  private string(): string {
    this.skipWhitespace();
    if (this.buf[this.pos] !== QUOTE) this.malformed("a string");
    const start = this.pos;
    const escaped = this.skipString();
    return escaped
      ? (JSON.parse(this.buf.toString("utf8", start, this.pos)) as string)
      : this.buf.toString("utf8", start + 1, this.pos - 1);
  }

  /** Moves past the string whose opening quote is at pos, decoding nothing; true when it has escapes. */
  private skipString(): boolean {
    const buf = this.buf;
    const start = this.pos;
    let i = start + 1;
    let escaped = false;
    while (i < buf.length && buf[i] !== QUOTE) {
      if (buf[i] === BACKSLASH) {
        escaped = true;
        i++;
      }
      i++;
    }
    if (i >= buf.length) this.malformed("the end of a string", start);
    this.pos = i + 1;
    return escaped;
  }

  /** A series' labels: the object's bytes decoded by JSON.parse (interning its keys), then checked. */
  private labels(path: string): Record<string, string> {
    return assertLabels(this.genericValue(), path);
  }

  /** Any JSON value at pos, decoded with JSON.parse of its bytes. */
  private genericValue(): unknown {
    this.skipWhitespace();
    const start = this.pos;
    this.skipValue();
    try {
      return JSON.parse(this.buf.toString("utf8", start, this.pos));
    } catch {
      this.malformed("a JSON value", start);
    }
  }

  private skipValue(): void {
    const buf = this.buf;
    const c = buf[this.pos];
    if (c === QUOTE) {
      this.skipString();
      return;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      let depth = 0;
      do {
        const d = buf[this.pos];
        if (d === QUOTE) {
          this.skipString();
          continue;
        }
        if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++;
        else if (d === CLOSE_BRACE || d === CLOSE_BRACKET) depth--;
        this.pos++;
      } while (depth > 0 && this.pos < buf.length);
      if (depth > 0) this.malformed("the end of a list or object");
      return;
    }
    const start = this.pos;
    while (this.pos < buf.length && !isDelimiter(buf[this.pos]!)) this.pos++;
    if (this.pos === start) this.malformed("a JSON value");
  }

  /** After an element: true at the closing bracket (consumed), false after a comma. */
  private listEnd(close: number): boolean {
    this.skipWhitespace();
    const c = this.buf[this.pos];
    this.pos++;
    if (c === close) return true;
    if (c === COMMA) return false;
    this.pos--;
    return this.malformed(`',' or '${String.fromCharCode(close)}'`);
  }

  private expect(byte: number, what: string): void {
    this.skipWhitespace();
    if (this.buf[this.pos] !== byte) this.malformed(what);
    this.pos++;
  }

  private skipWhitespace(): void {
    const buf = this.buf;
    let i = this.pos;
    while (i < buf.length) {
      const c = buf[i]!;
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      i++;
    }
    this.pos = i;
  }

  private grow(): void {
    const timestamps = new Float64Array(this.timestamps.length * 2);
    const values = new Float64Array(this.values.length * 2);
    timestamps.set(this.timestamps);
    values.set(this.values);
    this.timestamps = timestamps;
    this.values = values;
  }

  private malformed(expected: string, at = this.pos): never {
    const found = at >= this.buf.length ? "the end of the input" : `'${String.fromCharCode(this.buf[at]!)}'`;
    throw new InvalidInputError(this.field, `malformed JSON at byte ${this.base + at}: expected ${expected}, found ${found}`);
  }
}

function isDelimiter(c: number): boolean {
  return (
    c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === COLON
  );
}
