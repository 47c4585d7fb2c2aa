// `kepler-model validate` on the recorded responses: counts checked against a plain count of the JSON,
// valid feature groups against the reference's (test/fixtures/extractor/counts.json).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { extractorFixturePath, recordedResponseText } from "../../test/support/extractor-fixtures.js";
import { runCliCaptured as run } from "../../test/support/run-cli.js";

type Saved = Record<string, Array<{ metric: Record<string, string>; values: Array<[number, string]> }>>;

const golden = JSON.parse(readFileSync(extractorFixturePath("counts.json"), "utf8")) as Record<
  string,
  { valid_groups: string[] }
>;

// The reference's counts, computed here directly from the JSON: series, series with a sample > 0,
// samples, samples > 0, max.
function countsOf(saved: Saved, query: string, source?: string): string[] {
  const series = (saved[query] ?? []).filter((s) => source === undefined || s.metric.source === source);
  const values = series.map((s) => s.values.map(([, value]) => Number(value)));
  const all = values.flat();
  return [
    String(series.length),
    String(values.filter((v) => v.some((x) => x > 0)).length),
    String(all.length),
    String(all.filter((x) => x > 0).length),
    String(Math.max(...all)),
  ];
}

const cells = (line: string | undefined) => (line ?? "").trim().split(/\s{2,}/);
const lineOf = (stdout: string, start: string) => stdout.split("\n").find((line) => line.startsWith(`${start} `));

describe("kepler-model validate", () => {
  it("prints per-query counts, per-group validity and the reference's valid groups for coremark", async () => {
    const saved = JSON.parse(recordedResponseText("coremark")) as Saved;
    const { code, stdout, stderr } = await run(["validate", "--input", extractorFixturePath("coremark-2023-09-28.json.gz")]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const lines = stdout.split("\n");
    expect(cells(lines[0])).toEqual(["query", "source", "series", "series_>0", "samples", "samples_>0", "max"]);
    // One row per query, node energy queries once per energy source.
    expect(lines.slice(1, lines.indexOf(""))).toHaveLength(Object.keys(saved).length);
    for (const query of [
      "kepler_container_cpu_instructions_total",
      "kepler_container_bpf_net_tx_irq_total",
      "kepler_node_info",
    ]) {
      expect(cells(lineOf(stdout, query))).toEqual([query, ...countsOf(saved, query)]);
    }
    // RAPL is labelled `rapl` in this recording and reported as rapl-sysfs.
    expect(cells(lineOf(stdout, "kepler_node_package_joules_total"))).toEqual([
      "kepler_node_package_joules_total",
      "rapl-sysfs",
      ...countsOf(saved, "kepler_node_package_joules_total", "rapl"),
    ]);
    expect(cells(lineOf(stdout, "kepler_node_platform_joules_total"))).toEqual([
      "kepler_node_platform_joules_total",
      "acpi",
      ...countsOf(saved, "kepler_node_platform_joules_total", "acpi"),
    ]);
    expect(cells(lineOf(stdout, "kepler_node_uncore_joules_total")).slice(2)).toEqual(["4", "0", "752", "0", "0"]);

    // CounterOnly: the three counter queries summed.
    const counters = ["cache_miss", "cpu_cycles", "cpu_instructions"].map((f) => countsOf(saved, `kepler_container_${f}_total`));
    const sum = (i: number) => String(counters.reduce((n, c) => n + Number(c[i]), 0));
    expect(cells(lineOf(stdout, "CounterOnly"))).toEqual(["CounterOnly", "yes", sum(0), sum(2), sum(3), "-"]);
    expect(cells(lineOf(stdout, "BPFOnly"))).toEqual(["BPFOnly", "no", "0", "0", "0", "bpf_cpu_time_ms,bpf_page_cache_hit"]);
    expect(cells(lineOf(stdout, "CgroupOnly"))[1]).toBe("yes");
    expect(stdout).toContain(
      `\nvalid feature groups: ${golden.coremark!.valid_groups.join(", ")} (extra: IRQOnly, CgroupOnly, KubeletOnly)\nenergy sources: acpi, rapl-sysfs\n`,
    );
  });

  it("--json: the same report as data; the idle recording's valid groups are the reference's", async () => {
    const saved = JSON.parse(recordedResponseText("idle")) as Saved;
    const { code, stdout } = await run(["validate", "--input", extractorFixturePath("idle-2023-12-13.json.gz"), "--json"]);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as {
      queries: Array<{
        query: string;
        energySource: string;
        seriesCount: number;
        sampleCount: number;
        positiveSampleCount: number;
      }>;
      featureGroups: Array<{ featureGroup: string; valid: boolean; missingFeatures: string[]; note: string }>;
      validFeatureGroups: { reference: string[]; extra: string[] };
    };
    expect(report.validFeatureGroups.reference).toEqual(golden.idle!.valid_groups);
    const bpf = report.queries.find((q) => q.query === "kepler_container_bpf_cpu_time_ms_total")!;
    const [series, , samples, positive] = countsOf(saved, "kepler_container_bpf_cpu_time_ms_total").map(Number);
    expect(bpf).toMatchObject({ energySource: "", seriesCount: series, sampleCount: samples, positiveSampleCount: positive });
    expect(report.featureGroups.filter((g) => g.valid).map((g) => g.featureGroup)).toEqual([
      ...golden.idle!.valid_groups,
      ...report.validFeatureGroups.extra,
    ]);
    const full = report.featureGroups.find((g) => g.featureGroup === "Full")!;
    expect(full.valid).toBe(false);
  });

  it("--pod counts only the container series of matching pods; node queries and valid groups are unchanged", async () => {
    const saved = JSON.parse(recordedResponseText("coremark")) as Saved;
    const { code, stdout } = await run([
      "validate",
      "--input",
      extractorFixturePath("coremark-2023-09-28.json.gz"),
      "--pod",
      "coremark-cpeh",
    ]);
    expect(code).toBe(0);
    const query = "kepler_container_cpu_instructions_total";
    const pods = { [query]: saved[query]!.filter((s) => s.metric.pod_name!.includes("coremark-cpeh")) };
    expect(pods[query]).toHaveLength(40);
    expect(cells(lineOf(stdout, query))).toEqual([query, ...countsOf(pods, query)]);
    expect(cells(lineOf(stdout, "kepler_node_info"))).toEqual(["kepler_node_info", ...countsOf(saved, "kepler_node_info")]);
    expect(stdout).toContain(
      `\nvalid feature groups: ${golden.coremark!.valid_groups.join(", ")} (extra: IRQOnly, CgroupOnly, KubeletOnly)\n`,
    );
  });

  it("exits 2 without --input and 1 naming the file for a malformed response", async () => {
    const missing = await run(["validate"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe("kepler-model validate: --input is required (kepler-model validate --help lists the flags)\n");
    const path = extractorFixturePath("counts.json");
    const malformed = await run(["validate", "--input", path]);
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toMatch(new RegExp(`^kepler-model validate: ${path}\\.coremark: expected a list of series`));
  });
});
