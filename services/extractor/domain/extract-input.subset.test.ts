// extractInput (what an extraction sends to its worker thread: only the metrics it reads, plus the whole
// response's valid feature groups) must change nothing: every table, notice and error is the same as
// extracting from the whole response, on the recorded coremark and idle responses.
import { describe, expect, it } from "vitest";
import { recordedResponseText } from "../../../test/support/extractor-fixtures.js";
import { ENERGY_SOURCE_COMPONENTS, type EnergySource } from "../../domain/energy-sources.js";
import { FEATURE_GROUP_NAMES } from "../../domain/feature-groups.js";
import { parsePrometheusResponse } from "../../domain/prometheus-response.js";
import { type ExtractOptions, extract, extractInput } from "./extract.js";

function outcome(run: () => unknown): unknown {
  try {
    return { result: run() };
  } catch (error) {
    return { error: `${(error as Error).name}: ${(error as Error).message}` };
  }
}

describe("extractInput", () => {
  for (const recording of ["coremark", "idle"] as const) {
    it(`extracts from the ${recording} subset exactly as from the whole response`, () => {
      const response = parsePrometheusResponse(recordedResponseText(recording));
      let tables = 0;
      for (const energySource of Object.keys(ENERGY_SOURCE_COMPONENTS) as EnergySource[])
        for (const featureGroup of FEATURE_GROUP_NAMES)
          for (const level of ["node", "container"] as const)
            for (const [extractor, useVmMetrics, thirdPartyMetrics] of [
              ["default", false, []],
              ["smooth", false, []],
              ["default", true, []],
              ["default", false, ["kepler_container_joules_total"]],
            ] as const) {
              const options: ExtractOptions = { energySource, featureGroup, level, extractor, useVmMetrics, thirdPartyMetrics };
              const input = extractInput(response, options);
              expect(input.response.metrics.size).toBeLessThan(response.metrics.size);
              const whole = outcome(() => extract(response, options));
              expect(outcome(() => extract(input.response, options, input.validFeatureGroups))).toEqual(whole);
              if ("result" in (whole as object)) tables++;
            }
      // The comparison covered real tables, not only errors.
      expect(tables).toBeGreaterThan(20);
    });
  }
});
