import { describe, expect, it } from "vitest";
import type { PrometheusResponse } from "../domain/prometheus-response.js";
import { ResponseCache } from "./response-cache.js";

// A response of `samples` samples in one metric.
const response = (name: string, samples = 1) =>
  ({
    name,
    metrics: new Map([["m", { timestamps: new Float64Array(samples), values: new Float64Array(samples) }]]),
  }) as unknown as PrometheusResponse;

describe("ResponseCache", () => {
  it("keeps the most recently used responses up to its capacity", () => {
    const cache = new ResponseCache({ capacity: 2, keepMs: 1_000, maxSamples: 10, now: () => 0 });
    cache.put("a", response("a"));
    cache.put("b", response("b"));
    expect(cache.get("a")).toEqual(response("a"));
    cache.put("c", response("c"));
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")).toEqual(response("a"));
    expect(cache.get("c")).toEqual(response("c"));
    expect(cache.size).toBe(2);
  });

  it("drops a response once it went unused for longer than keepMs; each use renews it", () => {
    let now = 0;
    const cache = new ResponseCache({ capacity: 2, keepMs: 1_000, maxSamples: 10, now: () => now });
    cache.put("a", response("a"));
    now = 900;
    expect(cache.get("a")).toEqual(response("a"));
    now = 1_800;
    expect(cache.get("a")).toEqual(response("a"));
    now = 2_801;
    expect(cache.get("a")).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("keeps no response with more than maxSamples samples", () => {
    const cache = new ResponseCache({ capacity: 2, keepMs: 1_000, maxSamples: 10, now: () => 0 });
    cache.put("small", response("small", 10));
    cache.put("large", response("large", 11));
    expect(cache.get("small")).toBeDefined();
    expect(cache.get("large")).toBeUndefined();
  });
});
