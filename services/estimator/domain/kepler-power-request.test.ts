import { describe, expect, it } from "vitest";
import { declaredRowCount, decodeKeplerPowerRequest } from "./kepler-power-request.js";
import { KEPLER_0712_METRICS } from "../../../test/support/kepler-sidecar-client.js";

// Kepler 0.7.12's sidecar PowerRequest, byte for byte (issue 12).
const KEPLER_0_7_12 =
  '{"metrics":["bpf_cpu_time_ms","bpf_page_cache_hit","bpf_net_tx_irq","bpf_net_rx_irq","bpf_block_irq","cpu_cycles","cpu_instructions","cache_miss"],"values":[[0,0,0,0,0,0,0,0]],"output_type":"AbsPower","source":"intel_rapl","system_features":["cpu_architecture"],"system_values":["unknown"],"trainer_name":"","filter":""}';

function decodeError(request: unknown): string {
  try {
    decodeKeplerPowerRequest(request);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected the request to be rejected");
}

describe("decodeKeplerPowerRequest", () => {
  it("decodes Kepler 0.7.12's request for the estimator's own machine and any pipeline", () => {
    expect(decodeKeplerPowerRequest(JSON.parse(KEPLER_0_7_12))).toEqual({
      powersAsList: false,
      input: {
        featureNames: [...KEPLER_0712_METRICS],
        rowCount: 1,
        values: { kind: "list", list: [0, 0, 0, 0, 0, 0, 0, 0] },
        outputType: "AbsPower",
        energySource: "rapl-sysfs",
        systemFeatureNames: ["cpu_architecture"],
        systemFeatureValues: ["unknown"],
        trainerName: "",
        filter: "",
        pipelineName: "",
        unavailableFeatureNames: [],
      },
    });
  });

  it("accepts Kepler v0.5's shape (model_name, no source) and ignores unknown keys", () => {
    const v05 = {
      metrics: ["bpf_cpu_time_ms", "cpu_cycles"],
      values: [
        [10, 20],
        [30, 40],
      ],
      output_type: "DynPower",
      system_features: ["cpu_architecture"],
      system_values: ["Broadwell"],
      model_name: "SGDRegressorTrainer_1",
      filter: "",
      core_power: [],
      gpu_power: 1,
    };
    // Total power: platform watts, which v0.5 decodes as a plain list.
    const total = decodeKeplerPowerRequest(v05);
    expect(total.powersAsList).toBe(true);
    expect(total.input.energySource).toBe("acpi");
    expect(total.input.trainerName).toBe("SGDRegressorTrainer");
    expect(total.input.outputType).toBe("DynPower");
    expect(total.input.rowCount).toBe(2);
    expect(total.input.values).toEqual({ kind: "list", list: [10, 20, 30, 40] });
    // Component power: the map of RAPL components.
    const components = decodeKeplerPowerRequest({ ...v05, output_type: "AbsComponentPower" });
    expect(components.powersAsList).toBe(false);
    expect(components.input.energySource).toBe("rapl-sysfs");
    expect(components.input.outputType).toBe("AbsPower");
  });

  it("maps acpi and any rapl spelling (and an empty source) as the reference does", () => {
    const base = JSON.parse(KEPLER_0_7_12) as Record<string, unknown>;
    const sourceOf = (source: string) => decodeKeplerPowerRequest({ ...base, source }).input.energySource;
    expect(sourceOf("acpi")).toBe("acpi");
    expect(sourceOf("rapl-sysfs")).toBe("rapl-sysfs");
    expect(sourceOf("")).toBe("rapl-sysfs");
  });

  it("names the field and the reason for bad input", () => {
    const base = JSON.parse(KEPLER_0_7_12) as Record<string, unknown>;
    expect(decodeError([1, 2])).toBe("request: expected a JSON object (Kepler's PowerRequest), got a list");
    expect(decodeError({ ...base, metrics: undefined })).toBe("metrics: required: a list of strings");
    expect(decodeError({ ...base, values: [[1, 2]] })).toBe("values[0]: expected 8 values (one per metrics entry), got 2");
    expect(decodeError({ ...base, values: [[0, 0, 0, "x", 0, 0, 0, 0]] })).toBe('values[0][3]: expected a number, got "x"');
    expect(decodeError({ ...base, output_type: "Power" })).toBe(
      'output_type: output type "Power" is not supported (AbsPower or DynPower)',
    );
    expect(decodeError({ ...base, source: "nvidia" })).toBe(
      'source: unknown energy source "nvidia" (known: rapl-sysfs, rapl-msr, acpi, hmc, redfish, trained_power_model; aliases: rapl, intel_rapl)',
    );
    expect(decodeError({ ...base, system_values: [] })).toBe(
      "system_values: expected 1 values (one per system_features entry), got 0",
    );
  });
});

describe("declaredRowCount", () => {
  it("counts the rows of a request, 0 when there is no list of rows", () => {
    expect(declaredRowCount({ values: [[1], [2], [3]] })).toBe(3);
    expect(declaredRowCount({ values: "x" })).toBe(0);
    expect(declaredRowCount(null)).toBe(0);
  });
});
