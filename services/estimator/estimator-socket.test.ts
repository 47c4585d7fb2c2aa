// Server tests of the unix-socket estimator: a real registry (the ec2 fixture pipeline plus DynPower
// models published through PublishModel) and a real estimator listening on gRPC and on a socket.
// Kepler's side is reproduced by test/support/kepler-sidecar-client.ts; every power is checked against
// gRPC Estimate on the same row.
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  KEPLER_READ_BYTES,
  keplerMilliwatts,
  keplerPowerRequest,
  keplerSidecarCall,
} from "../../test/support/kepler-sidecar-client.js";
import {
  BUSY_ROW,
  COMPONENTS,
  grpcPowersOf,
  KEPLER_0_7_12_IDLE,
  METRICS_0_7_12,
  type SocketEstimator,
  startSocketEstimator,
} from "../../test/support/socket-estimator.js";

let socketPath: string;
let estimator: SocketEstimator["estimator"];
let started: SocketEstimator;

beforeAll(async () => {
  started = await startSocketEstimator();
  ({ socketPath, estimator } = started);
});

afterAll(async () => {
  await started.close();
});

const grpcPowers = (request: string) => grpcPowersOf(estimator, request);

/** One Kepler call that must succeed: the single read holds the whole response, which decodes. */
async function keplerPowers(request: string | string[]) {
  const exchange = await keplerSidecarCall(socketPath, request);
  expect(exchange.firstRead).toBe(exchange.allBytes);
  expect(exchange.firstRead.length).toBeLessThanOrEqual(KEPLER_READ_BYTES);
  const decoded = JSON.parse(exchange.firstRead) as { powers: Record<string, number[]>; msg: string; core_ratio: number };
  expect(decoded.msg).toBe("");
  return { ...decoded, text: exchange.firstRead };
}

async function expectStillServing(): Promise<void> {
  const { powers } = await keplerPowers(KEPLER_0_7_12_IDLE);
  expect(Object.keys(powers)).toEqual(["package", "core", "uncore", "dram"]);
}

describe("unix-socket estimator: Kepler 0.7.12's sidecar calls", () => {
  it("answers the exact idle request with gRPC Estimate's watts, in json.dumps' text", async () => {
    const expected = await grpcPowers(KEPLER_0_7_12_IDLE);
    const got = await keplerPowers(KEPLER_0_7_12_IDLE);
    expect(Object.keys(got.powers)).toEqual(["package", "core", "uncore", "dram"]);
    for (const component of COMPONENTS.intel_rapl) {
      const watts = got.powers[component] as number[];
      expect(watts).toHaveLength(1);
      expect(Math.abs((watts[0] as number) - (expected.powers[component]?.[0] as number))).toBeLessThan(1e-6);
    }
    expect(got.core_ratio).toBe(expected.coreRatio);
    expect(got.text).toMatch(
      /^\{"powers": \{"package": \[[0-9.e+-]+\], "core": \[[0-9.e+-]+\], "uncore": \[[0-9.e+-]+\], "dram": \[[0-9.e+-]+\]\}, "msg": "", "core_ratio": [0-9.e+-]+\}$/,
    );
    // The fixture's SGD weights: package idle = Bias_Weight (kepler-collector §2.4).
    expect(got.powers.package?.[0]).toBeCloseTo(143.81206324506658, 9);
  });

  for (const source of ["intel_rapl", "acpi"] as const) {
    for (const outputType of ["AbsPower", "DynPower"] as const) {
      for (const [label, row] of [
        ["idle", [0, 0, 0, 0, 0, 0, 0, 0]],
        ["busy", BUSY_ROW],
      ] as const) {
        it(`${source} ${outputType} ${label} row: equals gRPC Estimate within 1e-6 W`, async () => {
          const request = keplerPowerRequest({ metrics: METRICS_0_7_12, values: [[...row]], outputType, source });
          const expected = await grpcPowers(request);
          const got = await keplerPowers(request);
          expect(Object.keys(got.powers)).toEqual([...COMPONENTS[source]]);
          for (const component of COMPONENTS[source]) {
            const watts = got.powers[component] as number[];
            const want = expected.powers[component] as number[];
            expect(watts).toHaveLength(1);
            expect(Math.abs((watts[0] as number) - (want[0] as number))).toBeLessThan(1e-6);
            expect(watts[0]).toBeGreaterThanOrEqual(0);
          }
        });
      }
    }
  }

  it("answers a 100-row process request within one 4096-byte read, with the milliwatts Kepler would get from gRPC", async () => {
    const rows = Array.from({ length: 100 }, (_, i) => [i * 37.3 + 0.123456789, i * 3.1, 0, 0, 0, 1e6 * i, 2e6 * i, 1e4 * i]);
    const request = keplerPowerRequest({ metrics: METRICS_0_7_12, values: rows, outputType: "DynPower", source: "intel_rapl" });
    const expected = await grpcPowers(request);
    const got = await keplerPowers(request);
    for (const component of COMPONENTS.intel_rapl) {
      const want = expected.powers[component] as number[];
      expect(got.powers[component]).toHaveLength(100);
      expect(keplerMilliwatts(got.powers[component] as number[])).toEqual(keplerMilliwatts(want));
      const idleRatio = Math.min(got.core_ratio, 1);
      expect(keplerMilliwatts(got.powers[component] as number[], idleRatio)).toEqual(keplerMilliwatts(want, idleRatio));
    }
  });

  it("answers a request whose response cannot fit in one read with an error that fails Kepler's decode", async () => {
    const rows = Array.from({ length: 1000 }, (_, i) => [i * 37.3 + 0.123456789, i, 0, 0, 0, 0, 0, 0]);
    const request = keplerPowerRequest({ metrics: METRICS_0_7_12, values: rows, outputType: "DynPower", source: "intel_rapl" });
    const exchange = await keplerSidecarCall(socketPath, request);
    expect(exchange.firstRead).toBe(exchange.allBytes);
    expect(exchange.firstRead).toMatch(
      /^\{"powers": \[\], "msg": "the response for 1000 rows is \d+ bytes even at milliwatt precision; Kepler reads at most 4096 bytes: send fewer rows per request"\}$/,
    );
    await expectStillServing();
  });

  it("answers Kepler v0.5's total-power call (model_name, no source) with a plain list of platform watts", async () => {
    const v05 = JSON.stringify({
      metrics: METRICS_0_7_12,
      values: [BUSY_ROW],
      output_type: "AbsPower",
      system_features: ["cpu_architecture"],
      system_values: ["unknown"],
      model_name: "",
      filter: "",
    });
    const expected = await grpcPowers(
      keplerPowerRequest({ metrics: METRICS_0_7_12, values: [BUSY_ROW], outputType: "AbsPower", source: "acpi" }),
    );
    const exchange = await keplerSidecarCall(socketPath, v05);
    const decoded = JSON.parse(exchange.firstRead) as { powers: number[]; msg: string };
    expect(exchange.firstRead).toMatch(/^\{"powers": \[[0-9.e+-]+\], "msg": ""\}$/);
    expect(Math.abs((decoded.powers[0] as number) - (expected.powers.platform?.[0] as number))).toBeLessThan(1e-6);
  });

  it("reads a request split over several writes", async () => {
    const request = keplerPowerRequest({ metrics: METRICS_0_7_12, values: [BUSY_ROW], outputType: "AbsPower", source: "acpi" });
    const whole = await keplerPowers(request);
    const split = await keplerPowers([request.slice(0, 5), request.slice(5, 200), request.slice(200)]);
    expect(split.text).toBe(whole.text);
  });
});

describe("unix-socket estimator: bad input gets an error response or a closed connection, and serving goes on", () => {
  const call = (request: string | string[]) => keplerSidecarCall(socketPath, request);

  it("malformed JSON", async () => {
    const broken = '{"metrics": ]}';
    let v8Message = "";
    try {
      // The object is framed at the ']' that closes depth 1, so that much is parsed.
      JSON.parse('{"metrics": ]');
    } catch (error) {
      v8Message = (error as Error).message;
    }
    // The reason quotes V8's parse error, escaped as json.dumps escapes it (ASCII: the same as JSON.stringify).
    expect((await call(broken)).allBytes).toBe(
      `{"powers": {}, "msg": ${JSON.stringify(`request: not valid JSON (${v8Message})`)}}`,
    );
    expect((await call("hello")).allBytes).toBe(
      `{"powers": {}, "msg": "request: not valid JSON (expected a JSON object starting with '{')"}`,
    );
    await expectStillServing();
  });

  it("a request that ends before its JSON is whole", async () => {
    const exchange = await new Promise<string>((resolve, reject) => {
      const socket = connect(socketPath);
      const chunks: Buffer[] = [];
      socket.on("data", (chunk: Buffer) => chunks.push(chunk));
      socket.on("error", reject);
      socket.on("close", () => resolve(Buffer.concat(chunks).toString()));
      socket.end('{"metrics": ["bpf_cpu_time_ms"');
    });
    expect(exchange).toBe('{"powers": {}, "msg": "request: the connection ended before a whole JSON object was sent"}');
    await expectStillServing();
  });

  it("a 10 MB request", async () => {
    const huge = `{"metrics": ["${"x".repeat(10 * 1024 * 1024)}"]}`;
    expect((await call(huge)).allBytes).toBe('{"powers": [], "msg": "request: larger than the 4194304-byte limit"}');
    await expectStillServing();
  });

  it("an unknown source", async () => {
    const request = keplerPowerRequest({ metrics: METRICS_0_7_12, values: [BUSY_ROW], outputType: "AbsPower", source: "nvidia" });
    expect((await call(request)).allBytes).toBe(
      '{"powers": {}, "msg": "source: unknown energy source \\"nvidia\\" (known: rapl-sysfs, rapl-msr, acpi, hmc, redfish, trained_power_model; aliases: rapl, intel_rapl)"}',
    );
    await expectStillServing();
  });

  it("an error on a multi-row request is a list, so Kepler's process path skips it instead of indexing an empty map", async () => {
    const request = keplerPowerRequest({
      metrics: METRICS_0_7_12,
      values: [BUSY_ROW, BUSY_ROW],
      outputType: "AbsPower",
      source: "nvidia",
    });
    expect((await call(request)).allBytes).toMatch(/^\{"powers": \[\], "msg": "source: unknown energy source \\"nvidia\\"/);
  });
});
