// Domain tests of the sidecar response text. The expected strings were printed by Python 3.11's
// json.dumps (the reference estimator's encoder) for the same dicts.
import { describe, expect, it } from "vitest";
import { encodeErrorResponse, encodePowerResponse, type KeplerPowers } from "./kepler-power-response.js";

const powers = (components: Record<string, number[]>, coreRatio = 1): KeplerPowers => ({
  componentPowers: Object.entries(components).map(([component, watts]) => ({ component, powerWatts: Float64Array.from(watts) })),
  rowCount: Object.values(components)[0]?.length ?? 0,
  coreRatio,
});

/** What Kepler computes from the text: uint64(watts * 1000 * ratio) per value (utils.GetComponentPower). */
function keplerMilliwatts(text: string, ratio: number): Record<string, number[]> {
  const decoded = JSON.parse(text) as { powers: Record<string, number[]> };
  return Object.fromEntries(
    Object.entries(decoded.powers).map(([component, watts]) => [component, watts.map((w) => Math.trunc(w * 1000 * ratio))]),
  );
}

describe("encodePowerResponse", () => {
  it("writes json.dumps' text: ', ' and ': ' separators, Python float repr", () => {
    const encoded = encodePowerResponse(
      powers({ package: [160.41, 0.1 + 0.2, 1e-5, 12345678901234568], core: [0, 3], uncore: [], dram: [19.07] }),
    );
    expect(encoded.precision).toBe("full");
    expect(encoded.text).toBe(
      '{"powers": {"package": [160.41, 0.30000000000000004, 1e-05, 1.2345678901234568e+16], "core": [0.0, 3.0], "uncore": [], "dram": [19.07]}, "msg": "", "core_ratio": 1.0}',
    );
    expect(encodePowerResponse(powers({ platform: [212.6] }, 0.5)).text).toBe(
      '{"powers": {"platform": [212.6]}, "msg": "", "core_ratio": 0.5}',
    );
  });

  it("never writes negative watts (Go's uint64 of a negative float wraps)", () => {
    expect(encodePowerResponse(powers({ platform: [-3.5, -0, 2] })).text).toBe(
      '{"powers": {"platform": [0.0, 0.0, 2.0]}, "msg": "", "core_ratio": 1.0}',
    );
  });

  it("answers a non-finite prediction with an error Kepler can decode (Python would write Infinity)", () => {
    expect(encodePowerResponse(powers({ package: [1], dram: [Number.POSITIVE_INFINITY] })).text).toBe(
      '{"powers": {}, "msg": "the model predicted a non-finite dram power"}',
    );
  });

  it("rounds to Kepler's milliwatts when full precision does not fit, keeping every milliwatt Kepler computes", () => {
    // 100 rows x 4 components of 17-digit watts: ~7.6 kB at full precision.
    const rows = Array.from({ length: 100 }, (_, i) => i);
    const input = powers(
      {
        package: rows.map((i) => 100 + i / 7 + 0.0004999),
        core: rows.map((i) => 60 + i / 3),
        uncore: rows.map((i) => (i % 2 === 0 ? 0 : 0.9999999)),
        dram: rows.map((i) => 10 + i / 11),
      },
      0.75,
    );
    const encoded = encodePowerResponse(input);
    expect(encoded.precision).toBe("milliwatt");
    expect(encoded.text.length).toBeLessThanOrEqual(4096);
    const exact = Object.fromEntries(input.componentPowers.map((c) => [c.component, Array.from(c.powerWatts)]));
    for (const ratio of [1, 0.75]) {
      const expected = Object.fromEntries(
        Object.entries(exact).map(([component, watts]) => [component, watts.map((w) => Math.trunc(w * 1000 * ratio))]),
      );
      expect(keplerMilliwatts(encoded.text, ratio)).toEqual(expected);
    }
    // Fewer digits where they change nothing, enough digits not to round up across a milliwatt boundary.
    expect(encoded.text).toContain('"package": [100.0, 100.143, 100.286,');
    expect(encoded.text).toContain('"uncore": [0.0, 0.9999999, 0.0,');
  });

  it("answers an error naming the row count and the limit when even milliwatts do not fit", () => {
    const rows = Array.from({ length: 400 }, (_, i) => 100 + i / 7);
    const encoded = encodePowerResponse(powers({ package: rows, core: rows, uncore: rows, dram: rows }));
    expect(encoded.precision).toBe("error");
    expect(encoded.text).toBe(
      '{"powers": [], "msg": "the response for 400 rows is 14707 bytes even at milliwatt precision; Kepler reads at most 4096 bytes: send fewer rows per request"}',
    );
  });
});

describe("Kepler v0.5's total-power response", () => {
  it("is the plain list of platform watts", () => {
    expect(encodePowerResponse(powers({ platform: [212.6, -1] }), { powersAsList: true }).text).toBe(
      '{"powers": [212.6, 0.0], "msg": ""}',
    );
    // An error is a map there, which v0.5's list decode rejects, so it skips the estimate.
    expect(encodeErrorResponse("no model", 3, { powersAsList: true })).toBe('{"powers": {}, "msg": "no model"}');
  });
});

describe("encodeErrorResponse", () => {
  it("uses the reference's shape for one row, and a list for several so that Kepler's decode fails cleanly", () => {
    expect(encodeErrorResponse('source: unknown energy source "nvidia" \u00e9\u007f\n', 1)).toBe(
      '{"powers": {}, "msg": "source: unknown energy source \\"nvidia\\" \\u00e9\\u007f\\n"}',
    );
    expect(encodeErrorResponse("no model", 0)).toBe('{"powers": {}, "msg": "no model"}');
    expect(encodeErrorResponse("no model", 2)).toBe('{"powers": [], "msg": "no model"}');
  });

  it("shortens a long reason so the error itself fits Kepler's single read", () => {
    const text = encodeErrorResponse(`features lacking: ${"bpf_cpu_time_ms, ".repeat(400)}`, 1);
    expect(text.length).toBeLessThanOrEqual(4096);
    expect(text.startsWith('{"powers": {}, "msg": "features lacking: bpf_cpu_time_ms, ')).toBe(true);
    expect(text.endsWith('..."}')).toBe(true);
    expect(JSON.parse(text)).toHaveProperty("msg");
  });
});
