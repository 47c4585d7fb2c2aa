// `kepler-model query --to-csv --id` against a real Prometheus (backfilled with promtool), and
// `pipeline run` picking up the recorded machine_spec/<id>.json beside its --input.
import { mkdir, mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { discoverMachineSpec } from "../../services/node-types/discover-machine-spec.js";
import {
  type PrometheusInstance,
  type SavedResponseDocument,
  savedResponseToOpenMetrics,
  startPrometheus,
  describeWithPrometheus,
} from "../../test/support/prometheus.js";
import { runCliCaptured as cli } from "../../test/support/run-cli.js";

// A day back, on a 3 s grid, so the window is inside the backfilled block.
const START = Math.floor((Date.now() / 1000 - 86_400) / 3) * 3;
const RECORDING: SavedResponseDocument = {
  kepler_node_platform_joules_total: [
    {
      metric: { __name__: "kepler_node_platform_joules_total", instance: "n1", source: "acpi" },
      values: [0, 1, 2].map((i) => [START + 3 * i, String(100 + 30 * i)] as [number, string]),
    },
  ],
  kepler_container_bpf_cpu_time_ms_total: [
    {
      metric: { __name__: "kepler_container_bpf_cpu_time_ms_total", container_name: "a", pod_name: "p,1" },
      values: [0, 1, 2].map((i) => [START + 3 * i, String(2.5 * i)] as [number, string]),
    },
    {
      metric: { __name__: "kepler_container_bpf_cpu_time_ms_total", container_name: "b", mode: "dynamic" },
      values: [0, 1, 2].map((i) => [START + 3 * i, String(7 * i)] as [number, string]),
    },
  ],
};

let prometheus: PrometheusInstance;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cli-query-"));
  prometheus = await startPrometheus({ backfillOpenMetrics: savedResponseToOpenMetrics(RECORDING), lookbackDelta: "1s" });
}, 60_000);

afterAll(async () => {
  await prometheus?.stop();
  await rm(dir, { recursive: true, force: true });
});

describeWithPrometheus("kepler-model query --to-csv --id", () => {
  it("writes one CSV per metric in the reference's layout and the node's machine_spec/<id>.json", async () => {
    const out = join(dir, "rec", "response.json");
    const csvDir = join(dir, "rec", "csv");
    await mkdir(join(dir, "rec"));
    const result = await cli([
      "query",
      "--prometheus",
      prometheus.baseUrl,
      "--out",
      out,
      "--start",
      String(START),
      "--end",
      String(START + 6),
      "--to-csv",
      csvDir,
      "--id",
      "node-a",
    ]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`wrote 2 CSV files to ${csvDir}\n`);
    expect((await readdir(csvDir)).sort()).toEqual([
      "kepler_container_bpf_cpu_time_ms_total.csv",
      "kepler_node_platform_joules_total.csv",
    ]);
    // Labels in order of first appearance (missing ones empty), then timestamp and the float value.
    const containers = await readFile(join(csvDir, "kepler_container_bpf_cpu_time_ms_total.csv"), "utf8");
    expect(containers).toBe(
      [
        ",__name__,container_name,pod_name,mode,timestamp,kepler_container_bpf_cpu_time_ms_total",
        `0,kepler_container_bpf_cpu_time_ms_total,a,"p,1",,${START},0.0`,
        `1,kepler_container_bpf_cpu_time_ms_total,a,"p,1",,${START + 3},2.5`,
        `2,kepler_container_bpf_cpu_time_ms_total,a,"p,1",,${START + 6},5.0`,
        `3,kepler_container_bpf_cpu_time_ms_total,b,,dynamic,${START},0.0`,
        `4,kepler_container_bpf_cpu_time_ms_total,b,,dynamic,${START + 3},7.0`,
        `5,kepler_container_bpf_cpu_time_ms_total,b,,dynamic,${START + 6},14.0`,
        "",
      ].join("\n"),
    );
    const node = await readFile(join(csvDir, "kepler_node_platform_joules_total.csv"), "utf8");
    expect(node.split("\n")[0]).toBe(",__name__,instance,source,timestamp,kepler_node_platform_joules_total");
    expect(node.split("\n")[3]).toBe(`2,kepler_node_platform_joules_total,n1,acpi,${START + 6},160.0`);

    const spec = JSON.parse(await readFile(join(dir, "rec", "machine_spec", "node-a.json"), "utf8"));
    const local = await discoverMachineSpec();
    expect(spec).toEqual({
      processor: local.processor,
      vendor: local.vendor,
      cores: local.cores,
      chips: local.chips,
      memory: local.memory,
      frequency: local.frequency ?? 0,
      threads_per_core: local.threadsPerCore,
    });
    expect(spec.cores).toBeGreaterThan(0);
    expect(result.stdout).toContain(`wrote ${join(dir, "rec", "machine_spec", "node-a.json")}: `);
  });

  it("rejects an --id that is not a plain file name", async () => {
    const result = await cli(["query", "--prometheus", prometheus.baseUrl, "--out", join(dir, "x.json"), "--id", "../up"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('--id may hold letters, digits, ".", "_" and "-" only, got "../up"');
  });
});
