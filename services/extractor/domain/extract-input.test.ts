// Extraction semantics on small hand-made responses (bad input: extract-bad-input.test.ts); every expected number is
// worked out by hand in the comment next to it.
import { describe, expect, it } from "vitest";
import { column, NODE, parse } from "../../../test/support/extract-readers.js";
import { bpfResponse, C1, C2, container, energy, PLATFORM, type Samples } from "../../../test/support/extract-responses.js";
import { extract } from "./extract.js";

describe("extract semantics", () => {
  it("node level: features summed over containers per timestamp, first timestamp dropped by the join", () => {
    const result = extract(parse(bpfResponse()), NODE);
    expect(result.table.columnNames).toEqual(["bpf_cpu_time_ms", "bpf_page_cache_hit", "platform_power", "node_type"]);
    expect(Array.from(result.table.timestamps)).toEqual([1010, 1020, 1030]);
    expect(column(result, "bpf_cpu_time_ms")).toEqual([10, 30, 40]); // 10+0, 20+10, 30+10
    expect(column(result, "platform_power")).toEqual([100, 150, 150]);
    expect(column(result, "node_type")).toEqual([0, 0, 0]);
    expect(result.notices).toContain(
      "1 container(s) appear after the first timestamp (their first sample counts as rate 0, as in the reference) and 0 vanish before the last; each contributes rows only where it has samples",
    );
  });

  it("container level: (timestamp, id) rows ordered by time then id, power repeated on each row", () => {
    const result = extract(parse(bpfResponse()), { ...NODE, level: "container" });
    expect(Array.from(result.table.timestamps)).toEqual([1010, 1010, 1020, 1020, 1030, 1030]);
    expect(result.table.rowIds).toEqual(Array(3).fill(["c1/pod-c1/name-c1/ns", "c2/pod-c2/name-c2/ns"]).flat());
    expect(column(result, "bpf_cpu_time_ms")).toEqual([10, 0, 20, 10, 30, 10]);
    expect(column(result, "platform_power")).toEqual([100, 100, 150, 150, 150, 150]);
    expect(result.containerCount).toBe(2);
  });

  it("a vanishing container has rows only while it has samples", () => {
    // c1 stops after 1020: its rows are 1010 and 1020 only; node sums lose it at 1030.
    const stopped = C1.slice(0, 3);
    const response = parse(
      bpfResponse({
        kepler_container_bpf_cpu_time_ms_total: [container("c1", stopped), container("c2", C2)],
        kepler_container_bpf_page_cache_hit_total: [container("c1", stopped), container("c2", C2)],
      }),
    );
    const containers = extract(response, { ...NODE, level: "container" });
    expect(containers.table.rowIds).toEqual([
      "c1/pod-c1/name-c1/ns",
      "c2/pod-c2/name-c2/ns",
      "c1/pod-c1/name-c1/ns",
      "c2/pod-c2/name-c2/ns",
      "c2/pod-c2/name-c2/ns",
    ]);
    expect(column(extract(response, NODE), "bpf_cpu_time_ms")).toEqual([10, 30, 10]);
  });

  it("divides power by each row's own step (the reference divides by the mean step)", () => {
    // energy 0, 1000, 3000 J at 1000, 1010, 1030 s: 1000/10 = 100 W and 2000/20 = 100 W (mean step 15 s would give 66.7 and 133.3).
    const response = parse(
      bpfResponse({
        kepler_node_platform_joules_total: [
          energy("acpi", [
            [1000, 0],
            [1010, 1000],
            [1030, 3000],
          ]),
        ],
      }),
    );
    const result = extract(response, NODE);
    expect(Array.from(result.table.timestamps)).toEqual([1010, 1030]);
    expect(column(result, "platform_power")).toEqual([100, 100]);
  });

  it('sums energy over modes and packages, and reads `source="rapl"` as rapl-sysfs', () => {
    // package: two series (idle + dynamic) 0,300,600,900 and 0,100,200,300 -> (300+100)/10 = 40 W per row.
    const pkg = (mode: string, step: number) =>
      energy(
        "rapl",
        PLATFORM.map(([t], i) => [t, i * step]),
        { mode, package: "0" },
      );
    const zero = (name: string) => [
      energy(
        "rapl",
        PLATFORM.map(([t]) => [t, name === "dram" ? Number(t) : 0]),
        { package: "0" },
      ),
    ];
    const response = parse(
      bpfResponse({
        kepler_node_package_joules_total: [pkg("dynamic", 300), pkg("idle", 100)],
        kepler_node_core_joules_total: zero("core"),
        kepler_node_uncore_joules_total: zero("uncore"),
        kepler_node_dram_joules_total: zero("dram"),
      }),
    );
    const result = extract(response, { ...NODE, energySource: "rapl-sysfs" });
    expect(result.table.columnNames).toEqual([
      "bpf_cpu_time_ms",
      "bpf_page_cache_hit",
      "package_power",
      "core_power",
      "uncore_power",
      "dram_power",
      "node_type",
      "packge_ratio_package",
    ]);
    expect(column(result, "package_power")).toEqual([40, 40, 40]);
    expect(column(result, "dram_power")).toEqual([1, 1, 1]); // dram counter = t: 10 J / 10 s
    expect(column(result, "packge_ratio_package")).toEqual([1, 1, 1]);
  });

  it("counter decreases repeat the previous rate, for features and for power (reference mask -> ffill)", () => {
    // c1 0, 100, 300, 50: 10, 20, then a decrease -> 20 again. Energy 0, 1000, 2500, 100: 100, 150, then 150 again.
    const reset: Samples = [
      [1000, 0],
      [1010, 100],
      [1020, 300],
      [1030, 50],
    ];
    const response = parse({
      kepler_container_bpf_cpu_time_ms_total: [container("c1", reset)],
      kepler_container_bpf_page_cache_hit_total: [container("c1", reset)],
      kepler_node_platform_joules_total: [
        energy("acpi", [
          [1000, 0],
          [1010, 1000],
          [1020, 2500],
          [1030, 100],
        ]),
      ],
    });
    const result = extract(response, NODE);
    expect(column(result, "bpf_cpu_time_ms")).toEqual([10, 20, 20]);
    expect(column(result, "platform_power")).toEqual([100, 150, 150]);
    expect(result.notices).toEqual([
      "kepler_node_platform_joules_total: the summed acpi energy decreases 1 time(s); read as counter resets (the previous power is repeated, as in the reference)",
      "kepler_container_bpf_cpu_time_ms_total: 1 counter decrease(s) in 1 container(s) read as resets (the previous rate is repeated, as in the reference)",
      "kepler_container_bpf_page_cache_hit_total: 1 counter decrease(s) in 1 container(s) read as resets (the previous rate is repeated, as in the reference)",
    ]);
  });

  it("drops rows whose power sums to 0 (drop_zero_column drops rows, not columns)", () => {
    const flat: Samples = [
      [1000, 0],
      [1010, 1000],
      [1020, 1000],
      [1030, 2000],
    ];
    const result = extract(parse(bpfResponse({ kepler_node_platform_joules_total: [energy("acpi", flat)] })), NODE);
    expect(Array.from(result.table.timestamps)).toEqual([1010, 1030]);
    expect(result.notices).toContain(
      "1 timestamp(s) dropped because the power columns sum to 0 (or a system feature is missing there), as the reference's drop_zero_column does",
    );
  });

  it("merges a container split over several series by time (Kepler's `command` label changes)", () => {
    // c1's samples alternate between two series: merged 0, 100, 300, 600 -> 10, 20, 30 as if one series.
    const split = [container("c1", [C1[0]!, C1[2]!], { command: "a" }), container("c1", [C1[1]!, C1[3]!], { command: "b" })];
    const result = extract(parse(bpfResponse({ kepler_container_bpf_cpu_time_ms_total: split })), NODE);
    expect(column(result, "bpf_cpu_time_ms")).toEqual([10, 20, 30]);
  });

  it("two series of one container at the same steps (Prometheus lookback repeats): the one that changed last wins", () => {
    // Series a stopped after 1010 and Prometheus repeats 100 through its lookback; b is the restarted
    // container from 1020. Kept: 0, 100 (a), 5, 305 (b) -> rates 10, 10 (a decrease repeats the previous
    // rate), 30.
    const repeated: Samples = [C1[0]!, C1[1]!, [1020, 100], [1030, 100]];
    const restarted: Samples = [
      [1020, 5],
      [1030, 305],
    ];
    const split = [container("c1", repeated, { command: "a" }), container("c1", restarted, { command: "b" })];
    const result = extract(parse(bpfResponse({ kepler_container_bpf_cpu_time_ms_total: split })), NODE);
    expect(column(result, "bpf_cpu_time_ms")).toEqual([10, 10, 30]);
    expect(result.notices).toContain(
      "kepler_container_bpf_cpu_time_ms_total: 2 sample(s) of 1 container(s) fell on steps another series of the same container also had (Prometheus repeats a stopped series through its lookback window when no staleness marker ends it); the series that changed most recently was kept",
    );
  });

  it("ignores VM series in bare-metal mode and reads only them in VM mode", () => {
    const process = (id: string, samples: Samples) => ({ ...container(id, samples, { job: "vm", pid: "7" }) });
    const response = parse({
      ...bpfResponse(),
      kepler_container_bpf_cpu_time_ms_total: [container("c1", C1), container("c2", C2), container("vm1", C1, { job: "vm" })],
      kepler_process_bpf_cpu_time_ms_total: [process("p", C2)],
      kepler_process_bpf_page_cache_hit_total: [process("p", C2)],
      kepler_vm_platform_joules_total: [energy("acpi", PLATFORM)],
    });
    expect(column(extract(response, NODE), "bpf_cpu_time_ms")).toEqual([10, 30, 40]);
    const vm = extract(response, { ...NODE, level: "container", useVmMetrics: true });
    expect(vm.table.rowIds).toEqual(["p/7", "p/7", "p/7"]);
    expect(column(vm, "bpf_cpu_time_ms")).toEqual([0, 10, 10]);
  });

  it("reads node_type from kepler_node_node_info, or the given node type", () => {
    const info = { metric: { instance: "n" }, values: PLATFORM.map(([t]) => [t, "3"]) };
    const response = parse(bpfResponse({ kepler_node_node_info: [info] }));
    expect(column(extract(response, NODE), "node_type")).toEqual([3, 3, 3]);
    expect(column(extract(response, { ...NODE, nodeType: 7 }), "node_type")).toEqual([7, 7, 7]);
  });

  it("sums an accelerator metric over its series (every `type`) into one column named after the feature", () => {
    const qat = (type: string, value: number) => ({ metric: { type }, values: PLATFORM.map(([t]) => [t, String(value)]) });
    const response = parse(bpfResponse({ kepler_node_accelerator_intel_qat: [qat("b", 2), qat("a", 1), qat("a", 4)] }));
    const result = extract(response, { ...NODE, featureGroup: "AcceleratorOnly" });
    expect(result.table.columnNames).toEqual(["accelerator_intel_qat", "platform_power", "node_type"]);
    expect(result.features).toEqual(["accelerator_intel_qat"]);
    expect(column(result, "accelerator_intel_qat")).toEqual([7, 7, 7]);
  });

  it("ThirdParty accepts node-level series without container labels (summed per timestamp, as the reference)", () => {
    const node = (instance: string, value: number) => ({
      metric: { instance },
      values: PLATFORM.map(([t]) => [t, String(value)]),
    });
    const response = parse(bpfResponse({ node_fan_watts: [node("a", 3), node("b", 4)] }));
    const result = extract(response, { ...NODE, featureGroup: "ThirdParty", thirdPartyMetrics: ["node_fan_watts"] });
    expect(result.table.columnNames[0]).toBe("node_fan_watts");
    expect(column(result, "node_fan_watts")).toEqual([7, 7, 7]);
  });

  it("Full without its system metrics says why Kepler's recordings never have them", () => {
    const response = parse(bpfResponse({}));
    expect(() => extract(response, { ...NODE, featureGroup: "Full" })).toThrow(
      "response: missing metric kepler_node_cpu_scaling_frequency_hertz (needed for system feature cpu_scaling_frequency_hertz of group Full; Full is never valid for a recording: as in the reference, the valid groups are found among the WorkloadOnly features only, so Full's system features node_info and cpu_scaling_frequency_hertz never count (Kepler exports kepler_node_info, not the kepler_node_node_info the reference reads); use WorkloadOnly)",
    );
  });

  it("ThirdParty reads the named metrics verbatim", () => {
    const response = parse(bpfResponse({ my_counter_total: [container("c1", C1)] }));
    const result = extract(response, { ...NODE, featureGroup: "ThirdParty", thirdPartyMetrics: ["my_counter_total"] });
    expect(result.table.columnNames[0]).toBe("my_counter_total");
    expect(column(result, "my_counter_total")).toEqual([10, 20, 30]);
    expect(result.validFeatureGroups).toEqual(["BPFOnly", "ThirdParty"]);
  });

  it("smooth: rolling mean over 30 rows, first 29 rows dropped", () => {
    // 40 samples, counter c = t^2/20 at t = 0, 10, ... so the rate over (t-10, t] is (2t - 10)/20 /s;
    // the mean of 30 consecutive rates ending at t is (2(t - 145) - 10)/20. Power is a constant 100 W.
    const times = Array.from({ length: 40 }, (_, i) => 1000 + 10 * i);
    const counter: Samples = times.map((t) => [t, ((t - 1000) * (t - 1000)) / 20]);
    const response = parse({
      kepler_container_bpf_cpu_time_ms_total: [container("c1", counter)],
      kepler_container_bpf_page_cache_hit_total: [container("c1", counter)],
      kepler_node_platform_joules_total: [
        energy(
          "acpi",
          times.map((t) => [t, 100 * (t - 1000)]),
        ),
      ],
    });
    const result = extract(response, { ...NODE, extractor: "smooth" });
    expect(result.table.rowCount).toBe(39 - 29);
    expect(result.table.timestamps[0]).toBe(1300);
    const expected = Array.from(result.table.timestamps, (t) => (2 * (t - 1000 - 145) - 10) / 20);
    column(result, "bpf_cpu_time_ms").forEach((value, i) => {
      expect(value).toBeCloseTo(expected[i]!, 9);
    });
    expect(column(result, "platform_power")).toEqual(Array(10).fill(100));
  });
});
