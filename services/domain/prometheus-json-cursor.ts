// Byte-level JSON reading over a buffer for the Prometheus response scanner: tokens (numbers decoded
// exactly, strings, any value skipped or JSON.parse'd), list ends, and the [ts, "value"] pair list decoded
// into scratch float64 arrays. Errors are InvalidInputError naming the byte offset or the sample's path.
import { InvalidInputError } from "./errors.js";
import { assertLabels, assertTimestamp, describe, parseSampleValue } from "./prometheus-sample-checks.js";

const POWERS_OF_TEN = Array.from({ length: 23 }, (_, k) => 10 ** k);
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
const COMMA = 0x2c;
export const COLON = 0x3a;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;

/** The cursor: `pos` into `buf`, whose first byte is at `base` of the whole input (streaming). */
export class PrometheusJsonCursor {
  protected pos = 0;
  protected base = 0;
  protected timestamps = new Float64Array(1024);
  protected values = new Float64Array(1024);

  constructor(
    protected buf: Buffer,
    protected readonly field: string,
  ) {}

  /** Decodes the values list at pos into the scratch arrays; returns the sample count. */
  protected samplesHere(path: string): number {
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
  protected notPair(path: string, n: number, pairStart: number): never {
    this.pos = pairStart;
    throw new InvalidInputError(`${path}[${n}]`, `expected a [timestamp, "value"] pair, got ${describe(this.genericValue())}`);
  }

  protected sampleValue(path: string, n: number): number {
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
  protected number(): number | undefined {
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

  protected string(): string {
    this.skipWhitespace();
    if (this.buf[this.pos] !== QUOTE) this.malformed("a string");
    const start = this.pos;
    const escaped = this.skipString();
    return escaped
      ? (JSON.parse(this.buf.toString("utf8", start, this.pos)) as string)
      : this.buf.toString("utf8", start + 1, this.pos - 1);
  }

  /** Moves past the string whose opening quote is at pos, decoding nothing; true when it has escapes. */
  protected skipString(): boolean {
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
  protected labels(path: string): Record<string, string> {
    return assertLabels(this.genericValue(), path);
  }

  /** Any JSON value at pos, decoded with JSON.parse of its bytes. */
  protected genericValue(): unknown {
    this.skipWhitespace();
    const start = this.pos;
    this.skipValue();
    try {
      return JSON.parse(this.buf.toString("utf8", start, this.pos));
    } catch {
      this.malformed("a JSON value", start);
    }
  }

  protected skipValue(): void {
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
  protected listEnd(close: number): boolean {
    this.skipWhitespace();
    const c = this.buf[this.pos];
    this.pos++;
    if (c === close) return true;
    if (c === COMMA) return false;
    this.pos--;
    return this.malformed(`',' or '${String.fromCharCode(close)}'`);
  }

  protected expect(byte: number, what: string): void {
    this.skipWhitespace();
    if (this.buf[this.pos] !== byte) this.malformed(what);
    this.pos++;
  }

  protected skipWhitespace(): void {
    const buf = this.buf;
    let i = this.pos;
    while (i < buf.length) {
      const c = buf[i]!;
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      i++;
    }
    this.pos = i;
  }

  protected grow(): void {
    const timestamps = new Float64Array(this.timestamps.length * 2);
    const values = new Float64Array(this.values.length * 2);
    timestamps.set(this.timestamps);
    values.set(this.values);
    this.timestamps = timestamps;
    this.values = values;
  }

  protected malformed(expected: string, at = this.pos): never {
    const found = at >= this.buf.length ? "the end of the input" : `'${String.fromCharCode(this.buf[at]!)}'`;
    throw new InvalidInputError(this.field, `malformed JSON at byte ${this.base + at}: expected ${expected}, found ${found}`);
  }
}

function isDelimiter(c: number): boolean {
  return (
    c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === COLON
  );
}
