// `kepler-model pipeline run --extractor smooth` against all six services in one process: the pipeline
// trains on the smoothed table (the first 29 rows dropped), records the extractor in metadata.json, and
// its model's MAE equals `kepler-model train` on the CSV of `kepler-model extract --extractor smooth`, and
// `kepler-model evaluate` on the pipeline's models uses the smooth extractor too.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { type MeshHandle, startMesh } from "../../services/mesh/start-mesh.js";
import { extractorFixturePath } from "../support/extractor-fixtures.js";
import { runCliCaptured as run } from "../support/run-cli.js";

const COREMARK = extractorFixturePath("coremark-2023-09-28.json.gz");

let mesh: MeshHandle;
let folder: string;
const address = (name: string) => mesh.servers.find((server) => server.name === name)!.address;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "pipeline-extractor-cli-"));
  const ports = Object.fromEntries(
    ["registry", "estimator", "pipeline", "extractor", "isolator", "trainer"].map((name) => [`${name}-port`, "0"]),
  );
  mesh = await startMesh({
    logger: silentLogger(),
    flags: { ...ports, "model-path": join(folder, "models"), "registry-rescan-ms": "0" },
  });
}, 60_000);

afterAll(async () => {
  await mesh?.close();
  if (folder !== undefined) await rm(folder, { recursive: true, force: true });
});

/** The table every command here reads: coremark's acpi CounterOnly rows. */
const ACPI_COUNTER_ONLY = ["--source", "acpi", "--feature-group", "CounterOnly"];

const pipelineRun = (name: string, extractor: string[]) =>
  run([
    ...["pipeline", "run", "--pipeline", name, "--input", COREMARK, ...ACPI_COUNTER_ONLY],
    ...["--abs-trainers", "LinearRegressionTrainer", "--dyn-trainers", "", ...extractor],
    ...["--pipeline-address", address("pipeline")],
  ]);

describe("kepler-model pipeline run --extractor", () => {
  it("smooth: trains on the rolling-mean table and writes extractor smooth into metadata.json", async () => {
    const smooth = await pipelineRun("cli_smooth", ["--extractor", "smooth"]);
    expect(smooth.code).toBe(0);
    expect(smooth.stderr.split("\n")).toContain("extract 1/1 acpi/CounterOnly/node: 158 rows");
    const metadata = JSON.parse(await readFile(join(folder, "models", "cli_smooth", "metadata.json"), "utf8")) as Record<
      string,
      unknown
    >;
    expect(metadata.extractor).toBe("smooth");

    const csv = join(folder, "smooth.csv");
    const extracted = await run(["extract", "--input", COREMARK, ...ACPI_COUNTER_ONLY, "--extractor", "smooth", "--out", csv]);
    expect(extracted.code).toBe(0);
    const trained = await run([
      "train",
      "--input",
      csv,
      ...ACPI_COUNTER_ONLY,
      "--trainers",
      "LinearRegressionTrainer",
      "--dry-run",
    ]);
    expect(trained.code).toBe(0);
    const trainMae = /^LinearRegressionTrainer\s+0\s+platform\s+(\S+)/m.exec(trained.stdout)?.[1];
    expect(trainMae).toBeDefined();
    expect(smooth.stdout.split("\n")[1]).toMatch(
      new RegExp(
        `^acpi\\s+AbsPower\\s+CounterOnly\\s+LinearRegressionTrainer_0\\s+${trainMae!.replace(".", "\\.")}\\s+published$`,
      ),
    );

    // evaluate reads the pipeline's extractor from metadata.json: the smoothed table, 158 rows in sample.
    const evaluated = await run([
      "evaluate",
      "--in-sample",
      "--pipeline",
      "cli_smooth",
      "--input",
      COREMARK,
      "--model-path",
      join(folder, "models"),
      "--json",
    ]);
    expect(evaluated.code).toBe(0);
    const report = JSON.parse(evaluated.stdout) as { extractor: string; models: Array<{ modelName: string; rowCount: number }> };
    expect(report.extractor).toBe("smooth");
    expect(report.models.map((m) => [m.modelName, m.rowCount])).toEqual([["LinearRegressionTrainer_0", 158]]);

    const plain = await pipelineRun("cli_default", []);
    expect(plain.code).toBe(0);
    expect(plain.stderr.split("\n")).toContain("extract 1/1 acpi/CounterOnly/node: 187 rows");
    const defaultMetadata = JSON.parse(await readFile(join(folder, "models", "cli_default", "metadata.json"), "utf8")) as {
      extractor: string;
    };
    expect(defaultMetadata.extractor).toBe("default");
  }, 120_000);

  it("refuses an unknown extractor with exit code 2", async () => {
    const result = await pipelineRun("cli_bad", ["--extractor", "rough"]);
    expect(result.code).toBe(2);
    expect(result.stderr.split("\n")[0]).toBe(
      'kepler-model pipeline: --extractor must be one of default, smooth, got "rough" (kepler-model pipeline --help lists the flags)',
    );
  });
});
