// `kepler-model models` and `kepler-model estimate` against a real registry and estimator on 127.0.0.1:0.
import { mkdtemp, rm } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEstimator } from "../../services/estimator/main.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { readZip } from "../../services/models/index.js";
import { startRegistry } from "../../services/registry/main.js";
import { runCliCaptured as cli } from "../../test/support/run-cli.js";

const FIXTURE = new URL("../../test/fixtures/registry/ec2-fixture", import.meta.url).pathname;

let dir: string;
let registry: Awaited<ReturnType<typeof startRegistry>>;
let estimator: Awaited<ReturnType<typeof startEstimator>>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cli-models-"));
  registry = await startRegistry(
    { host: "127.0.0.1", port: 0, modelPath: join(dir, "models"), rescanIntervalMs: 0, sourcePipelines: [] },
    { logger: silentLogger() },
  );
  estimator = await startEstimator(
    {
      host: "127.0.0.1",
      port: 0,
      registryAddress: registry.address,
      machineSpecFile: "",
      estimatorSocket: "",
      registryDeadlineMs: 5000,
    },
    { logger: silentLogger() },
  );
});

afterAll(async () => {
  await estimator.close();
  await registry.close();
  await rm(dir, { recursive: true, force: true });
});

describe("kepler-model models / estimate", () => {
  it("imports a kepler-model-db pipeline folder, lists it, ranks it and exports it", async () => {
    const imported = await cli(["models", "import", FIXTURE, "--registry-address", registry.address]);
    expect(imported).toEqual({
      code: 0,
      stderr: "",
      stdout:
        "imported pipeline ec2-fixture: 3 models served, 1 skipped\n  skipped rapl-sysfs/AbsPower/BPFOnly/GradientBoostingRegressorTrainer_0: pickled scikit-learn model without weight.json: not readable without Python\n",
    });
    const listed = await cli(["models", "list", "--source", "rapl-sysfs", "--registry-address", registry.address]);
    expect(listed.stdout).toBe(
      [
        "pipeline     source      output    feature_group  model                           mae_w  weights",
        "ec2-fixture  rapl-sysfs  AbsPower  BPFOnly        ExponentialRegressionTrainer_0  75.5   yes",
        "ec2-fixture  rapl-sysfs  AbsPower  BPFOnly        SGDRegressorTrainer_0           60.78  yes",
        "",
      ].join("\n"),
    );
    const best = await cli(["models", "best", "--source", "acpi", "--registry-address", registry.address]);
    expect(best.stdout).toBe(
      [
        "output    feature_group  model                  mae_w  pipeline",
        "AbsPower  BPFOnly        SGDRegressorTrainer_0  9.7    ec2-fixture",
        "",
      ].join("\n"),
    );
    const bestJson = await cli(["models", "best", "--source", "acpi", "--json", "--registry-address", registry.address]);
    expect({ code: bestJson.code, rows: JSON.parse(bestJson.stdout) }).toEqual({
      code: 0,
      rows: [
        { output: "AbsPower", feature_group: "BPFOnly", model: "SGDRegressorTrainer_0", mae_w: 9.7, pipeline: "ec2-fixture" },
      ],
    });
    const listJson = await cli(["models", "list", "--source", "rapl-sysfs", "--json", "--registry-address", registry.address]);
    expect(JSON.parse(listJson.stdout).map((row: { model: string; mae_w: number }) => [row.model, row.mae_w])).toEqual([
      ["ExponentialRegressionTrainer_0", 75.5],
      ["SGDRegressorTrainer_0", 60.78],
    ]);
    // Filters that match nothing name what the registry holds (ec2-fixture's node_type_index.json has 0..5).
    const noPipeline = await cli(["models", "list", "--pipeline", "nope", "--registry-address", registry.address]);
    expect(noPipeline).toEqual({
      code: 1,
      stdout: "",
      stderr: "kepler-model models: no models in pipeline nope: pipelines here are ec2-fixture\n",
    });
    const noNodeType = await cli(["models", "best", "--node-type", "9", "--registry-address", registry.address]);
    expect(noNodeType).toEqual({
      code: 1,
      stdout: "",
      stderr: "kepler-model models: no models of node type 9: node types here are 0, 1, 2, 3, 4, 5\n",
    });
    const output = join(dir, "export.zip");
    const exported = await cli(["models", "export", "ec2-fixture", "--output", output, "--registry-address", registry.address]);
    expect(exported.code).toBe(0);
    const names = readZip(readFileSync(output)).map((entry) => entry.name);
    // 6 model files, metadata.json, node_type_index.json, the model table of each source and README.md.
    expect(exported.stdout).toBe(`wrote ${output} (${readFileSync(output).byteLength} bytes): 3 models exported, 0 dropped\n`);
    expect(names.length).toBe(11);
    expect(names).toContain("README.md");
    expect(names).toContain("acpi_AbsPower_model_metadata.csv");
    expect(names).toContain("rapl-sysfs_AbsPower_model_metadata.csv");
  });

  it("export drops models over the MAE / MAPE gate, stamps metadata.json and writes the README", async () => {
    const output = join(dir, "gated.zip");
    const exported = await cli([
      "models",
      "export",
      "ec2-fixture",
      "--output",
      output,
      "--max-mape",
      "20",
      "--max-mae",
      "50",
      "--publisher",
      "Jane Doe",
      "--collect-date",
      "2024-07-25",
      "--registry-address",
      registry.address,
    ]);
    expect(exported.stderr).toBe("");
    expect(exported.code).toBe(0);
    expect(exported.stdout.split("\n").slice(1)).toEqual([
      "  dropped rapl-sysfs/AbsPower/BPFOnly/ExponentialRegressionTrainer_0: MAPE 20.1 % > 20 %",
      "  dropped rapl-sysfs/AbsPower/BPFOnly/SGDRegressorTrainer_0: MAE 60.78 W > 50 W",
      "",
    ]);
    expect(exported.stdout.split("\n")[0]).toMatch(/: 1 models exported, 2 dropped$/);
    const entries = new Map(readZip(readFileSync(output)).map((entry) => [entry.name, Buffer.from(entry.data).toString("utf8")]));
    expect([...entries.keys()].filter((name) => name.startsWith("rapl-sysfs/"))).toEqual([]);
    expect(entries.has("acpi/AbsPower/BPFOnly/SGDRegressorTrainer_0.zip")).toBe(true);
    // The table loses the dropped rows: header only.
    expect(entries.get("rapl-sysfs_AbsPower_model_metadata.csv")!.trimEnd().split("\n")).toHaveLength(1);
    expect(entries.get("acpi_AbsPower_model_metadata.csv")!.trimEnd().split("\n")).toHaveLength(2);
    const metadata = JSON.parse(entries.get("metadata.json")!);
    expect(metadata).toMatchObject({ name: "ec2-fixture", publisher: "Jane Doe", collect_time: "2024-07-25 00:00:00" });
    expect(metadata.export_time).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    const readme = entries.get("README.md")!;
    expect(readme).toContain("# ec2-fixture\n\n- Publisher: Jane Doe\n- Collected: 2024-07-25 00:00:00\n");
    expect(readme).toContain("- Extractor: default, isolator: min\n");
    expect(readme).toContain(
      "- AbsPower trainers: SGDRegressorTrainer, ExponentialRegressionTrainer, GradientBoostingRegressorTrainer\n",
    );
    expect(readme).toContain("- Validity gate: models with MAPE > 20 % or MAE > 50 W are dropped\n");
    expect(readme).toContain("## Machines (node types)\n\nAvailable node types: 6\n\n| node type | processor |");
    expect(readme).toContain("| 1 | intel_xeon_e5_2686v4 | 72 | 2 | 503 | 3000 | i3.metal-ami-0e4d0bb9670ea8db0 |\n");
    expect(readme).toContain(
      [
        "## Accuracy (1 models exported)",
        "",
        "| source | output type | feature group | model | MAE (W) | MAPE (%) |",
        "|---|---|---|---|---|---|",
        "| acpi | AbsPower | BPFOnly | SGDRegressorTrainer_0 | 9.7 | 6.5 |",
        "",
        "## Dropped (2 models)",
        "",
        "| source | output type | feature group | model | MAE (W) | MAPE (%) | reason |",
        "|---|---|---|---|---|---|---|",
        "| rapl-sysfs | AbsPower | BPFOnly | SGDRegressorTrainer_0 | 60.78 | 17.77 | MAE 60.78 W > 50 W |",
        "| rapl-sysfs | AbsPower | BPFOnly | ExponentialRegressionTrainer_0 | 75.5 | 20.1 | MAPE 20.1 % > 20 % |",
        "",
      ].join("\n"),
    );
    const bad = await cli(["models", "export", "ec2-fixture", "--max-mape", "-1", "--registry-address", registry.address]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--max-mape must be a number >= 0, got "-1"');
  });

  it("estimates power with the chosen model", async () => {
    const result = await cli([
      "estimate",
      "--metrics",
      "bpf_cpu_time_ms,bpf_page_cache_hit",
      "--values",
      "5210.33,420;0,0",
      "--output-type",
      "AbsPower",
      "--source",
      "acpi",
      "--cores",
      "48",
      "--estimator-address",
      estimator.address,
      "--json",
    ]);
    expect(result.code).toBe(0);
    const response = JSON.parse(result.stdout);
    expect(response.componentPowers).toEqual([
      {
        component: "platform",
        powerWatts: [63.732101547596734 + 60.735455390707436 * (5210.33 / 3991.690709751875), 63.732101547596734],
        // A kepler-model-db model stores no calibration residuals: no prediction interval.
        lowerWatts: [],
        upperWatts: [],
        intervalHalfWidthWatts: 0,
      },
    ]);
    expect([response.modelName, response.coreRatio]).toEqual(["SGDRegressorTrainer_0", 0.5]);
    const table = await cli([
      "estimate",
      "--metrics",
      "bpf_cpu_time_ms,bpf_page_cache_hit",
      "--values",
      "0,0",
      "--source",
      "acpi",
      "--estimator-address",
      estimator.address,
    ]);
    expect(table.stdout.split("\n").slice(0, 3)).toEqual(["row  platform_w", "0    63.732", ""]);
  });

  it("reports failures with their status", async () => {
    const result = await cli([
      "estimate",
      "--metrics",
      "cpu_cycles",
      "--values",
      "1",
      "--source",
      "acpi",
      "--estimator-address",
      estimator.address,
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'kepler-model estimate: FAILED_PRECONDITION: no AbsPower model for acpi in pipeline "ec2-fixture" covers the given features [cpu_cycles]; the closest, SGDRegressorTrainer_0 (BPFOnly), needs [bpf_cpu_time_ms, bpf_page_cache_hit] (missing [bpf_cpu_time_ms, bpf_page_cache_hit])\n',
    );
    const usage = await cli(["estimate", "--metrics", "a,b", "--values", "1", "--estimator-address", estimator.address]);
    expect(usage.code).toBe(2);
    expect(usage.stderr.split("\n")[0]).toBe(
      'kepler-model estimate: --values row 1 ("1") needs 2 comma-separated numbers, one per metric (kepler-model estimate --help lists the flags)',
    );
  });
});
