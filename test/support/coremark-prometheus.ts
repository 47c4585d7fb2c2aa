// The pipeline end-to-end tests' data: a real Prometheus backfilled with the recorded coremark run, moved
// to yesterday, and what that recording holds (its sources, valid feature groups and machine).
import { afterAll, beforeAll } from "vitest";
import type { PrometheusWindow } from "../../services/generated/kepler/model/v1/types.js";
import { coremarkDocument, startBackfilledPrometheus } from "./backfilled-coremark.js";
import { COREMARK_WINDOW, type PrometheusInstance, shiftToYesterday } from "./prometheus.js";

export const COREMARK_SOURCES = ["rapl-sysfs", "acpi"] as const;
/** Valid for the coremark recording (reference counts.json: valid_groups). */
export const COREMARK_FEATURE_GROUPS = ["CounterIRQCombined", "CounterOnly"];
export const COREMARK_MACHINE = {
  processor: "intel_xeon_platinum_8259cl",
  cores: 96,
  chips: 2,
  memoryGib: 384,
  frequencyMhz: 3500,
  vendor: "intel",
  threadsPerCore: 2,
};

export interface CoremarkPrometheus {
  readonly baseUrl: string;
  /** Seconds the recording was moved by. */
  readonly shiftSeconds: number;
  /** The whole recording as a live window on this Prometheus. */
  liveWindow(): PrometheusWindow;
}

/** Starts the Prometheus in a beforeAll registered where this is called, and stops it in an afterAll. */
export function useCoremarkPrometheus(): CoremarkPrometheus {
  const shiftSeconds = shiftToYesterday();
  let prometheus: PrometheusInstance | undefined;
  beforeAll(async () => {
    // Lookback 1s: backfilled series carry no staleness markers (see test/integration/prometheus-extract).
    prometheus = await startBackfilledPrometheus(coremarkDocument(), shiftSeconds, "1s");
  }, 120_000);
  afterAll(async () => {
    await prometheus?.stop();
  });
  const baseUrl = () => {
    if (prometheus === undefined) throw new Error("Prometheus is started in beforeAll");
    return prometheus.baseUrl;
  };
  return {
    get baseUrl() {
      return baseUrl();
    },
    shiftSeconds,
    liveWindow: () => ({
      baseUrl: baseUrl(),
      startTimeSeconds: COREMARK_WINDOW.first + shiftSeconds,
      endTimeSeconds: COREMARK_WINDOW.last + shiftSeconds,
      stepSeconds: COREMARK_WINDOW.stepSeconds,
      thirdPartyMetricNames: [],
      metricPrefix: "",
    }),
  };
}
