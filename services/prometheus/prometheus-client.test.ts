import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { InvalidInputError } from "../domain/errors.js";
import { ResponseTooLargeError } from "../domain/capped-response-body.js";
import { createPrometheusClient, DEFAULT_PROMETHEUS_MAX_RESPONSE_BYTES, splitRange } from "./prometheus-client.js";

describe("splitRange", () => {
  it("keeps a window of at most N points whole", () => {
    // (561 / 3) + 1 = 188 points
    expect([...splitRange(1000, 1561, 3)]).toEqual([[1000, 1561]]);
  });

  it("splits 25,001 points at 11,000 into 11,000 + 11,000 + 3,001 on the original step grid", () => {
    // 25,001 points at 1 s: steps 0..25000
    expect([...splitRange(0, 25_000, 1)]).toEqual([
      [0, 10_999],
      [11_000, 21_999],
      [22_000, 25_000],
    ]);
  });

  it("drops a partial last step as Prometheus does (end not on the grid)", () => {
    expect([...splitRange(0, 10, 3, 2)]).toEqual([
      [0, 3],
      [6, 9],
    ]);
  });

  it("refuses a non-positive step and an inverted window", () => {
    expect(() => [...splitRange(0, 10, 0)]).toThrow(new InvalidInputError("window.step_seconds", "must be positive, got 0"));
    expect(() => [...splitRange(10, 0, 1)]).toThrow(new InvalidInputError("window", "end 0 is before start 10"));
  });

  it("refuses a step under 1 ms and a window of more than 2,816,000 points, before planning any query", () => {
    // The request: a 1e-6 s step once precomputed 90.9 M sub-ranges and exhausted the heap.
    expect(() => splitRange(0, 1000, 1e-6).next()).toThrow(
      new InvalidInputError("window.step_seconds", "must be at least 0.001 s, got 0.000001"),
    );
    expect(() => splitRange(0, 2_816_000, 1).next()).toThrow(
      new InvalidInputError(
        "window",
        "2816000 s at a 1 s step is 2816001 points per series; at most 2816000 (256 queries of 11000): shorten the window or raise the step",
      ),
    );
    expect([...splitRange(0, 2_815_999, 1)]).toHaveLength(256);
  });
});

describe("createPrometheusClient", () => {
  it("refuses a base URL that is not http(s)", () => {
    expect(() => createPrometheusClient({ baseUrl: "ftp://x", timeoutMs: 1 })).toThrow(
      'base_url: expected an http or https URL, got "ftp://x"',
    );
    expect(() => createPrometheusClient({ baseUrl: "no url", timeoutMs: 1 })).toThrow('base_url: not a URL: "no url"');
  });
});

describe("createPrometheusClient answer size", () => {
  // A query_range answer of `series` series of 100 points each (~30 bytes a point), sent as it is written.
  const answer = (series: number) =>
    JSON.stringify({
      status: "success",
      data: {
        resultType: "matrix",
        result: Array.from({ length: series }, (_, s) => ({
          metric: { __name__: "m", i: String(s) },
          values: Array.from({ length: 100 }, (_, t) => [1000 + t, "12345.678"]),
        })),
      },
    });

  it("reads an answer under --prometheus-max-response-bytes and refuses a larger one (RESOURCE_EXHAUSTED)", async () => {
    let series = 1;
    const server = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" }); // chunked: no announced size
      response.end(answer(series));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const client = createPrometheusClient({ baseUrl, timeoutMs: 5000, maxResponseBytes: 64 * 1024 });
      expect(Buffer.byteLength(answer(1))).toBeLessThan(64 * 1024);
      expect((await client.queryRange("m", 1000, 1099, 1)).map((s) => s.values.length)).toEqual([100]);
      series = 100;
      const error = await client.queryRange("m", 1000, 1099, 1).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ResponseTooLargeError);
      expect((error as Error).message).toBe(
        `${baseUrl}/api/v1/query_range sent more than 65536 bytes (--prometheus-max-response-bytes); stopped reading there`,
      );
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    expect(DEFAULT_PROMETHEUS_MAX_RESPONSE_BYTES).toBe(128 * 1024 * 1024);
  });
});
