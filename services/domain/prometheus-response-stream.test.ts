// The streaming parser must produce exactly what the whole-text scanner produces, for any chunking,
// and report the same errors with absolute byte offsets.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordedResponseText } from "../../test/support/extractor-fixtures.js";
import { flatPrometheusResponse as flatten } from "../../test/support/flat-prometheus-response.js";
import {
  type PrometheusResponse,
  PrometheusResponseStream,
  parsePrometheusResponse,
  readPrometheusResponseFile,
} from "./prometheus-response.js";

function streamed(text: string, chunkBytes: number): PrometheusResponse {
  const stream = new PrometheusResponseStream();
  const bytes = Buffer.from(text);
  for (let start = 0; start < bytes.length; start += chunkBytes) stream.push(bytes.subarray(start, start + chunkBytes));
  return stream.finish();
}

const TRICKY = `{
  "m": [ { "extra": [1, {"a": "]}\\""}], "values": [ [ 1.5 , "1e3" ], [2, 12345678901234567890], [3,"-0.000001"] ],
           "metric": { "la\\"bel": "va\\u00e9l", "x": "{[" } }, {"metric": {}, "values": [[1, "NaN"], [2, "+Inf"]]} ],
  "empty": [],
  "n\\"ame": [{"metric": {"a": "b"}, "values": [[7, "123456.789"]]}]
}  `;

describe("PrometheusResponseStream", () => {
  it("decodes the recorded idle response identically for chunk sizes 1 byte to 64 KiB (splits inside numbers and strings)", () => {
    const text = recordedResponseText("idle");
    const whole = flatten(parsePrometheusResponse(text));
    for (const size of [1, 7, 777, 65_536]) expect(flatten(streamed(text, size))).toEqual(whole);
  });

  it("decodes escapes, brackets inside strings, exponents and special values at every split point", () => {
    const whole = flatten(parsePrometheusResponse(TRICKY));
    expect(whole.map((metric) => metric.name)).toEqual(["m", "empty", 'n"ame']);
    for (let size = 1; size <= 40; size++) expect(flatten(streamed(TRICKY, size))).toEqual(whole);
  });

  it("reports malformed input with the whole-text message and absolute byte offset", () => {
    const text = '{"m": [{"metric": {}, "values": [[1, "2"]]} x]}';
    const wholeError = (() => {
      try {
        parsePrometheusResponse(text);
      } catch (error) {
        return (error as Error).message;
      }
      return "no error";
    })();
    expect(wholeError).toContain("malformed JSON at byte 44");
    for (const size of [1, 5, 100]) expect(() => streamed(text, size)).toThrow(wholeError);
  });

  it("refuses a truncated document, a wrong sample and trailing text", () => {
    expect(() => streamed('{"m": [{"metric": {}, "values": [[1, "2"]]}', 3)).toThrow(/malformed JSON at byte 43/);
    expect(() => streamed('{"m": [{"metric": {}, "values": [[1, "x"]]}]}', 4)).toThrow("response.m[0].values[0][1]");
    expect(() => streamed('{"m": []} {', 2)).toThrow(/expected end of input after the top-level object/);
    expect(() => streamed("", 2)).toThrow("empty response");
  });

  describe("readPrometheusResponseFile", () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), "response-stream-"));
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it("reads plain and .gz files to the same response as the whole-text parser", async () => {
      const text = recordedResponseText("coremark");
      await writeFile(join(dir, "r.json"), text);
      await writeFile(join(dir, "r.json.gz"), gzipSync(text));
      const whole = flatten(parsePrometheusResponse(text));
      expect(whole.length).toBeGreaterThan(5);
      expect(flatten(await readPrometheusResponseFile(join(dir, "r.json")))).toEqual(whole);
      expect(flatten(await readPrometheusResponseFile(join(dir, "r.json.gz")))).toEqual(whole);
    });
  });
});
