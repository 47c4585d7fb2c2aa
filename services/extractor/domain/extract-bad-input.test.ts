// Extraction of bad input on small hand-made responses: every refusal names its place, every repair says so.
import { describe, expect, it } from "vitest";
import { column, invalid, NODE, parse } from "../../../test/support/extract-readers.js";
import { bpfResponse, C1, C2, container, energy, PLATFORM, type Samples } from "../../../test/support/extract-responses.js";
import { parsePrometheusResponse } from "../../domain/prometheus-response.js";
import { extract } from "./extract.js";

describe("bad input", () => {
  it("malformed JSON and wrong shapes name the place", () => {
    expect(invalid(() => parsePrometheusResponse("{")).message).toBe(
      "response: malformed JSON at byte 1: expected a string, found the end of the input",
    );
    expect(invalid(() => parsePrometheusResponse('{"m": [{"metric": {}, "values": [[1, "2"]}]}')).message).toBe(
      "response: malformed JSON at byte 41: expected ',' or ']', found '}'",
    );
    expect(invalid(() => parsePrometheusResponse(" ")).message).toBe(
      "response: empty response: expected a JSON object of metric names",
    );
    expect(invalid(() => parsePrometheusResponse("[]")).message).toBe(
      "response: expected a JSON object mapping metric names to series lists, got a list of 0",
    );
    expect(invalid(() => parse({ m: [{ metric: {}, values: [[1, "1"], [2]] }] })).message).toBe(
      'response.m[0].values[1]: expected a [timestamp, "value"] pair, got a list of 1',
    );
    expect(invalid(() => parse({ m: [{ metric: { a: 1 }, values: [] }] })).message).toBe(
      "response.m[0].metric.a: expected a string label value, got 1",
    );
    expect(invalid(() => parse({ m: [{ metric: {}, values: [[1, "x"]] }] })).message).toBe(
      'response.m[0].values[0][1]: expected a numeric string, got "x"',
    );
  });

  it("missing metrics and sources are named", () => {
    const noEnergy = bpfResponse({ kepler_node_platform_joules_total: undefined });
    expect(invalid(() => extract(parse(noEnergy), NODE)).message).toBe(
      "response: missing metric kepler_node_platform_joules_total (needed for the platform power of energy source acpi)",
    );
    expect(invalid(() => extract(parse(bpfResponse()), { ...NODE, energySource: "hmc" })).message).toBe(
      'response.kepler_node_platform_joules_total: no series with source="hmc" (sources present: acpi)',
    );
    const noFeature = bpfResponse({ kepler_container_bpf_page_cache_hit_total: undefined });
    expect(invalid(() => extract(parse(noFeature), NODE)).message).toBe(
      "response: missing metric kepler_container_bpf_page_cache_hit_total (needed for feature bpf_page_cache_hit of group BPFOnly)",
    );
  });

  it("NaN or infinite samples in used series are rejected with their position; unused ones are ignored", () => {
    const nan: Samples = [
      [1000, 0],
      [1010, "NaN"],
    ];
    expect(
      invalid(() =>
        extract(
          parse(bpfResponse({ kepler_container_bpf_cpu_time_ms_total: [container("c1", C1), container("c2", nan)] })),
          NODE,
        ),
      ).message,
    ).toBe(
      "response.kepler_container_bpf_cpu_time_ms_total[1].values[1][1]: value is NaN; samples used for extraction must be finite numbers",
    );
    const inf: Samples = [...PLATFORM.slice(0, 3), [1030, "+Inf"]];
    expect(
      invalid(() => extract(parse(bpfResponse({ kepler_node_platform_joules_total: [energy("acpi", inf)] })), NODE)).message,
    ).toBe(
      "response.kepler_node_platform_joules_total[0].values[3][1]: value is Infinity; samples used for extraction must be finite numbers",
    );
    const unused = extract(parse(bpfResponse({ kepler_container_cpu_cycles_total: [container("c1", nan)] })), NODE);
    expect(unused.table.rowCount).toBe(3);
  });

  it("out-of-order samples are sorted (as the reference's sort_index) with a notice; duplicates are rejected", () => {
    const shuffled: Samples = [C1[2]!, C1[0]!, C1[3]!, C1[1]!];
    const result = extract(
      parse(bpfResponse({ kepler_container_bpf_cpu_time_ms_total: [container("c1", shuffled), container("c2", C2)] })),
      NODE,
    );
    expect(column(result, "bpf_cpu_time_ms")).toEqual([10, 30, 40]);
    expect(result.notices).toContain(
      "kepler_container_bpf_cpu_time_ms_total: the samples of response.kepler_container_bpf_cpu_time_ms_total[0] were not in time order and were sorted, as the reference does",
    );
    const duplicated: Samples = [C1[0]!, C1[1]!, [1010, 150]];
    expect(
      invalid(() => parse(bpfResponse({ kepler_container_bpf_cpu_time_ms_total: [container("c1", duplicated)] }))).message,
    ).toBe("response.kepler_container_bpf_cpu_time_ms_total[0].values[2][0]: duplicate timestamp 1010 in one series");
  });

  it("energy steps not covered by every series are left out, with a notice", () => {
    // a second package series misses 1020: the sum uses 1000, 1010, 1030 only.
    const gap = energy("acpi", [PLATFORM[0]!, PLATFORM[1]!, PLATFORM[3]!], { mode: "idle" });
    const result = extract(parse(bpfResponse({ kepler_node_platform_joules_total: [energy("acpi", PLATFORM), gap] })), NODE);
    expect(Array.from(result.table.timestamps)).toEqual([1010, 1030]);
    expect(column(result, "platform_power")).toEqual([200, 300]); // (1000+1000)/10, (4000+4000-2000)/20
    expect(result.notices).toContain(
      "kepler_node_platform_joules_total: 1 timestamp(s) not covered by every acpi series were left out of the energy sum",
    );
  });

  it("AcceleratorOnly at container level and ThirdParty without metrics are refused", () => {
    expect(
      invalid(() => extract(parse(bpfResponse()), { ...NODE, featureGroup: "AcceleratorOnly", level: "container" })).field,
    ).toBe("level");
    expect(invalid(() => extract(parse(bpfResponse()), { ...NODE, featureGroup: "ThirdParty" })).field).toBe(
      "third_party_metric_names",
    );
  });
});
