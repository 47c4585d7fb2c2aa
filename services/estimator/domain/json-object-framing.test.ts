import { describe, expect, it } from "vitest";
import { type FramingState, JsonObjectFraming } from "./json-object-framing.js";

function feed(...chunks: string[]): FramingState[] {
  const framing = new JsonObjectFraming();
  return chunks.map((chunk) => framing.push(Buffer.from(chunk, "utf8")));
}

describe("JsonObjectFraming", () => {
  it("completes at the closing brace of the top-level object, counting from the stream start", () => {
    expect(feed(' {"a": [1, {"b": 2}]}')).toEqual([{ kind: "complete", end: 21 }]);
  });

  it("waits across chunks, including a split after an inner '}' (where the reference stops too early)", () => {
    expect(feed('{"a": {"b": 1}', ', "c": [2', "]}")).toEqual([
      { kind: "incomplete" },
      { kind: "incomplete" },
      { kind: "complete", end: 25 },
    ]);
  });

  it("ignores braces and escaped quotes inside strings, and multi-byte UTF-8 split between chunks", () => {
    const text = '{"s": "}{\\"]", "t": "é"}';
    const bytes = Buffer.from(text, "utf8");
    const cut = bytes.indexOf(0xc3) + 1; // between the two bytes of é
    const framing = new JsonObjectFraming();
    expect(framing.push(bytes.subarray(0, cut))).toEqual({ kind: "incomplete" });
    expect(framing.push(bytes.subarray(cut))).toEqual({ kind: "complete", end: bytes.length });
  });

  it("rejects anything that does not start with an object", () => {
    expect(feed("  [1]")).toEqual([{ kind: "malformed", reason: "expected a JSON object starting with '{'" }]);
    expect(feed("hello")).toEqual([{ kind: "malformed", reason: "expected a JSON object starting with '{'" }]);
  });
});
