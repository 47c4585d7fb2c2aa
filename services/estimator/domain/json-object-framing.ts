// Finds where one JSON object ends in a byte stream, so a request split over several writes is read
// whole (Kepler sends no length prefix or newline). The reference stops at the first chunk whose last
// character is `}`, which cuts a request split after an inner `}`; tracking depth outside strings does not.
// Only ASCII bytes matter here, and UTF-8 continuation bytes are never ASCII, so chunks can split anywhere.

// The bytes that matter, spelled as the characters they are.
const QUOTE = '"'.charCodeAt(0);
const BACKSLASH = "\\".charCodeAt(0);
const OPEN_BRACE = "{".charCodeAt(0);
const CLOSE_BRACE = "}".charCodeAt(0);
const OPEN_BRACKET = "[".charCodeAt(0);
const CLOSE_BRACKET = "]".charCodeAt(0);

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

/** What the bytes seen so far are: still incomplete, one whole object (ending at `end`), or not an object. */
export type FramingState = { kind: "incomplete" } | { kind: "complete"; end: number } | { kind: "malformed"; reason: string };

/** Incremental scanner over the request bytes; feed each chunk in order. */
export class JsonObjectFraming {
  private depth = 0;
  private inString = false;
  private escaped = false;
  private started = false;
  private seen = 0;

  /** Scans one more chunk; `end` in a complete state counts bytes from the start of the stream. */
  push(chunk: Uint8Array): FramingState {
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i] as number;
      if (!this.started) {
        if (isWhitespace(byte)) continue;
        if (byte !== OPEN_BRACE) return { kind: "malformed", reason: "expected a JSON object starting with '{'" };
        this.started = true;
        this.depth = 1;
        continue;
      }
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (byte === BACKSLASH) this.escaped = true;
        else if (byte === QUOTE) this.inString = false;
        continue;
      }
      if (byte === QUOTE) this.inString = true;
      else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) this.depth++;
      else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
        this.depth--;
        if (this.depth === 0) return { kind: "complete", end: this.seen + i + 1 };
      }
    }
    this.seen += chunk.length;
    return { kind: "incomplete" };
  }
}
