// Issue 17's window requests over real gRPC, against the extractor and the pipeline in one process
// (the mesh launcher, temporary MODEL_PATH). Nothing listens at the Prometheus address: every request
// here must be refused before anything is planned or contacted.
import { Status } from "nice-grpc";
import { describe, expect, it } from "vitest";
import type { PrometheusWindow } from "../../services/generated/kepler/model/v1/types.js";
import { clientError, drain } from "../support/call-errors.js";
import { useE2eMesh } from "../support/e2e-mesh.js";
import { useExtractorAndPipeline } from "../support/mesh-clients.js";

const mesh = useE2eMesh("window-bounds-", () => "http://127.0.0.1:1");
const clients = useExtractorAndPipeline(mesh);

function window(extra: Partial<PrometheusWindow>): PrometheusWindow {
  return {
    baseUrl: "http://127.0.0.1:1",
    startTimeSeconds: 1_700_000_000,
    endTimeSeconds: 1_700_001_000,
    stepSeconds: 3,
    thirdPartyMetricNames: [],
    metricPrefix: "",
    ...extra,
  };
}

/** StartOnlinePipeline of a BPFOnly rapl-sysfs LinearRegression pipeline over `window(windowFields)`. */
const startOnline = (windowFields: Partial<PrometheusWindow>, intervalSeconds: number, lookbackSeconds: number) =>
  clients.pipeline.client.startOnlinePipeline({
    options: {
      pipelineName: "bounds_online",
      energySources: ["rapl-sysfs"],
      featureGroups: ["BPFOnly"],
      absTrainerNames: ["LinearRegressionTrainer"],
      window: window(windowFields),
    },
    intervalSeconds,
    lookbackSeconds,
  });

describe("windows, steps and intervals", () => {
  it("refuses QueryPrometheus with a 1e-6 s step (it once precomputed 90.9 M sub-ranges)", async () => {
    const error = await clientError(() =>
      drain(clients.extractor.client.queryPrometheus({ window: window({ stepSeconds: 1e-6 }) })),
    );
    expect(error.code).toBe(Status.INVALID_ARGUMENT);
    expect(error.details).toBe("window.step_seconds: must be at least 0.001 s, got 0.000001");
  });

  it("refuses a window of more points than 256 query_range requests can carry", async () => {
    const long = window({ startTimeSeconds: 1_700_000_000, endTimeSeconds: 1_700_000_000 + 40 * 86_400, stepSeconds: 1 });
    const error = await clientError(() => drain(clients.extractor.client.queryPrometheus({ window: long })));
    expect(error.code).toBe(Status.INVALID_ARGUMENT);
    expect(error.details).toBe(
      "window: 3456000 s at a 1 s step is 3456001 points per series; at most 2816000 (256 queries of 11000): shorten the window or raise the step",
    );
    const extract = await clientError(() =>
      drain(
        clients.extractor.client.extractFromPrometheus({
          window: long,
          options: {
            energySource: "rapl-sysfs",
            featureGroup: "BPFOnly",
            level: 1,
            extractor: 0,
            nodeType: 0,
            useVmMetrics: false,
            thirdPartyMetricNames: [],
          },
        }),
      ),
    );
    expect(extract.code).toBe(Status.INVALID_ARGUMENT);
    expect(extract.details).toMatch(/^window: 3456000 s at a 1 s step/);
  });

  for (const [intervalSeconds, why] of [
    [0.001, "a 1 ms interval"],
    [1e10, "1e10 s (which overflowed setTimeout to 1 ms)"],
  ] as const) {
    it(`refuses an online pipeline with ${why}`, async () => {
      const error = await clientError(() => startOnline({ startTimeSeconds: 0, endTimeSeconds: 0 }, intervalSeconds, 0));
      expect(error.code).toBe(Status.INVALID_ARGUMENT);
      expect(error.details).toBe(`interval_seconds: must be 0 (the default) or 10 .. 604800 s, got ${intervalSeconds}`);
    });
  }

  it("refuses an online lookback whose window has too many points at its step", async () => {
    const error = await clientError(() =>
      startOnline({ startTimeSeconds: 0, endTimeSeconds: 0, stepSeconds: 0.1 }, 600, 604_800),
    );
    expect(error.code).toBe(Status.INVALID_ARGUMENT);
    expect(error.details).toBe(
      "options.window: 604800 s at a 0.1 s step is 6048001 points per series; at most 2816000 (256 queries of 11000): shorten the window or raise the step",
    );
    const { onlinePipelines } = await clients.pipeline.client.listPipelines({});
    expect(onlinePipelines).toEqual([]);
  });
});
