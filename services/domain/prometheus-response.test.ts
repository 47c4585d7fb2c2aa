// The saved-response parser: the byte scanner must decode exactly what JSON.parse + Number() decode.
import { describe, expect, it } from "vitest";
import { recordedResponseText } from "../../test/support/extractor-fixtures.js";
import { flatPrometheusResponse as flatten } from "../../test/support/flat-prometheus-response.js";
import { type PrometheusResponse, PrometheusResponseStream, parsePrometheusResponse } from "./prometheus-response.js";

describe("parsePrometheusResponse", () => {
  for (const name of ["coremark", "idle"] as const) {
    it(`decodes the recorded ${name} response bit-exactly like JSON.parse + Number()`, () => {
      const text = recordedResponseText(name);
      expect(flatten(parsePrometheusResponse(text))).toEqual(flatten(parsePrometheusResponse(JSON.parse(text))));
    });
  }

  it("reads labels from the bytes as JSON.parse does: escapes, unicode, spacing, a repeated name, none", () => {
    const text = `{"m": [
      {"metric": {"__name__":"m","a\\"b":"x\\u00e9\\n","ü":"ß" ,  "k" : "1","k":"2"}, "values": [[1,"1"]]},
      {"metric": {}, "values": [[2,"2"]]},
      {"metric": { "only" : "one" }, "values": [[3,"3"]]}
    ]}`;
    const labels = (response: PrometheusResponse) => response.metrics.get("m")?.series.map((s) => Object.entries(s.labels));
    const scanned = labels(parsePrometheusResponse(text));
    expect(scanned).toEqual(labels(parsePrometheusResponse(JSON.parse(text))));
    expect(scanned?.[0]).toEqual([
      ["__name__", "m"],
      ['a"b', "xé\n"],
      ["ü", "ß"],
      ["k", "2"],
    ]);
    expect(scanned?.slice(1)).toEqual([[], [["only", "one"]]]);
  });

  it("reads pretty-printed JSON, escaped labels, exponents, long mantissas, numeric values and unknown keys", () => {
    const text = `{
      "m": [ { "extra": [1, {"a": "]"}], "values": [ [ 1.5 , "1e3" ], [2, 12345678901234567890], [3,"-0.000001"], [4, "0.1"] ],
               "metric": { "la\\"bel": "va\\u00e9l" } } ],
      "empty": []
    }`;
    const response = parsePrometheusResponse(text);
    const metric = response.metrics.get("m")!;
    expect(metric.series[0]!.labels).toEqual({ 'la"bel': "vaél" });
    expect(Array.from(metric.timestamps)).toEqual([1.5, 2, 3, 4]);
    expect(Array.from(metric.values)).toEqual([1000, Number("12345678901234567890"), -0.000001, 0.1]);
    expect(response.metrics.get("empty")!.series).toEqual([]);
  });

  it("reads special values the way Prometheus writes them", () => {
    const response = parsePrometheusResponse(
      '{"m": [{"metric": {}, "values": [[1, "NaN"], [2, "+Inf"], [3, "-Inf"], [4, "7"]]}]}',
    );
    const metric = response.metrics.get("m")!;
    expect(Array.from(metric.values)).toEqual([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 7]);
    expect(metric.series[0]!.firstNonFiniteIndex).toBe(0);
  });

  it("collects chunks split anywhere, even inside a number", () => {
    const text = recordedResponseText("idle");
    const reader = new PrometheusResponseStream();
    const bytes = Buffer.from(text);
    for (let start = 0; start < bytes.length; start += 777) reader.push(bytes.subarray(start, start + 777));
    expect(flatten(reader.finish())).toEqual(flatten(parsePrometheusResponse(text)));
  });

  it("refuses a response above its size limit", () => {
    const reader = new PrometheusResponseStream("response_chunk", 10);
    expect(() => reader.push(Buffer.alloc(11))).toThrow("response_chunk: response is larger than the limit of 10 bytes");
  });
});
