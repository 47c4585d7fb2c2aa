// `kepler-model pipeline` against all six services in one process (127.0.0.1 port 0, temporary
// MODEL_PATH), with the recorded coremark response streamed inline (`kepler-model isolate`:
// isolate-cli.test.ts).
import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliCaptured } from "../support/run-cli.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { type MeshHandle, startMesh } from "../../services/mesh/start-mesh.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { extractorFixturePath } from "../support/extractor-fixtures.js";

const COREMARK = extractorFixturePath("coremark-2023-09-28.json.gz");

let mesh: MeshHandle;
let folder: string;
const address = (name: string) => mesh.servers.find((server) => server.name === name)!.address;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "pipeline-cli-"));
  const ports = Object.fromEntries(
    ["registry", "estimator", "pipeline", "extractor", "isolator", "trainer"].map((name) => [`${name}-port`, "0"]),
  );
  mesh = await startMesh({
    logger: silentLogger(),
    flags: {
      ...ports,
      "model-path": join(folder, "models"),
      "registry-rescan-ms": "0",
      "prometheus-allowlist": "http://127.0.0.1:1",
    },
  });
}, 60_000);

afterAll(async () => {
  await mesh?.close();
  if (folder !== undefined) await rm(folder, { recursive: true, force: true });
});

function run(argv: string[], options: { tty?: boolean } = {}) {
  return runCliCaptured(argv, { stderrIsTty: options.tty });
}

describe("kepler-model pipeline", () => {
  it("runs a pipeline on a saved response: plain progress lines, one row per model, the registry holds them", async () => {
    const { code, stdout, stderr } = await run([
      "pipeline",
      "run",
      "--name",
      "cli_inline",
      "--input",
      COREMARK,
      "--sources",
      "acpi",
      "--feature-groups",
      "CounterOnly",
      "--abs-trainers",
      "LinearRegressionTrainer,KNeighborsRegressorTrainer",
      "--dyn-trainers",
      "LinearRegressionTrainer",
      "--pipeline-address",
      address("pipeline"),
    ]);
    expect(code).toBe(0);
    const progress = stderr.trimEnd().split("\n");
    expect(progress).toEqual([
      "extract 0/2 acpi/CounterOnly/node: extracting the node table",
      "extract 1/2 acpi/CounterOnly/node: 187 rows",
      "train 0/3 acpi/CounterOnly/AbsPower/LinearRegressionTrainer: training LinearRegressionTrainer",
      "publish 0/3 acpi/CounterOnly/AbsPower/LinearRegressionTrainer_0: published LinearRegressionTrainer_0",
      "train 1/3 acpi/CounterOnly/AbsPower/LinearRegressionTrainer: trained LinearRegressionTrainer",
      "train 1/3 acpi/CounterOnly/AbsPower/KNeighborsRegressorTrainer: training KNeighborsRegressorTrainer",
      "publish 1/3 acpi/CounterOnly/AbsPower/KNeighborsRegressorTrainer_0: published KNeighborsRegressorTrainer_0",
      "train 2/3 acpi/CounterOnly/AbsPower/KNeighborsRegressorTrainer: trained KNeighborsRegressorTrainer",
      "extract 1/2 acpi/CounterOnly/container: extracting the container table",
      "extract 2/2 acpi/CounterOnly/container: 4342 rows",
      // The default isolator: profile, which found no idle data nor stored profile and used min.
      "isolate 0/1 acpi/CounterOnly: isolating with profile",
      "isolate 1/1 acpi/CounterOnly: 187 rows (min)",
      "train 2/3 acpi/CounterOnly/DynPower/LinearRegressionTrainer: training LinearRegressionTrainer",
      "publish 2/3 acpi/CounterOnly/DynPower/LinearRegressionTrainer_0: published LinearRegressionTrainer_0",
      "train 3/3 acpi/CounterOnly/DynPower/LinearRegressionTrainer: trained LinearRegressionTrainer",
      "metadata 1/1 cli_inline: wrote metadata.json, train_arguments.json, 2 tables",
    ]);

    const registry = createRegistryClient(address("registry"));
    try {
      const { models } = await registry.client.listModels({ pipelineName: "cli_inline" });
      const mae = (output: string, name: string) =>
        models
          .find((m) => m.modelName === name && m.location?.outputType === (output === "AbsPower" ? 1 : 2))!
          .maeWatts.toFixed(2);
      expect(stdout).toBe(
        [
          "source  output    feature_group  model                         mae_w  status",
          `acpi    AbsPower  CounterOnly    LinearRegressionTrainer_0     ${mae("AbsPower", "LinearRegressionTrainer_0")}  published`,
          `acpi    AbsPower  CounterOnly    KNeighborsRegressorTrainer_0  ${mae("AbsPower", "KNeighborsRegressorTrainer_0")}   published`,
          `acpi    DynPower  CounterOnly    LinearRegressionTrainer_0     ${mae("DynPower", "LinearRegressionTrainer_0")}  published`,
          "",
          "pipeline cli_inline: 3 models published, 0 failed; metadata.json written",
          "note: acpi/CounterOnly: no idle profile for platform on node type 0: the min isolator was applied instead (profile if a profile exists for the node type, else min)",
          "",
        ].join("\n"),
      );
    } finally {
      registry.close();
    }
  }, 120_000);

  it("indexes the node type from machine_spec/<id>.json beside --input (left there by `query --id`)", async () => {
    const recording = join(folder, "recording");
    await mkdir(join(recording, "machine_spec"), { recursive: true });
    await copyFile(COREMARK, join(recording, "coremark.json.gz"));
    const spec = { processor: "intel_xeon_e5_2667_v3", vendor: "intel", cores: 32, chips: 2, memory: 251, frequency: 3600 };
    await writeFile(join(recording, "machine_spec", "m-coremark.json"), JSON.stringify(spec));
    const { code, stderr } = await run([
      "pipeline",
      "run",
      "--name",
      "cli_beside",
      "--input",
      join(recording, "coremark.json.gz"),
      "--machine-id",
      "m-coremark",
      "--sources",
      "acpi",
      "--feature-groups",
      "CounterOnly",
      "--abs-trainers",
      "LinearRegressionTrainer",
      "--dyn-trainers",
      "",
      "--pipeline-address",
      address("pipeline"),
    ]);
    expect(stderr).not.toContain("error");
    expect(code).toBe(0);
    const registry = createRegistryClient(address("registry"));
    try {
      const { nodeTypes } = await registry.client.listNodeTypes({ pipelineName: "cli_beside" });
      expect(nodeTypes.map((n) => ({ members: n.members, spec: n.spec }))).toEqual([
        {
          members: ["m-coremark"],
          spec: expect.objectContaining({ processor: spec.processor, cores: 32, chips: 2, memoryGib: 251, frequencyMhz: 3600 }),
        },
      ]);
    } finally {
      registry.close();
    }
  }, 120_000);

  it("draws a progress bar on a terminal, one line per model", async () => {
    const { code, stdout, stderr } = await run(
      [
        "pipeline",
        "run",
        "--name",
        "cli_tty",
        "--input",
        COREMARK,
        "--sources",
        "rapl-sysfs",
        "--feature-groups",
        "CounterOnly",
        "--abs-trainers",
        "LinearRegressionTrainer,SGDRegressorTrainer",
        "--dyn-trainers",
        "",
        "--pipeline-address",
        address("pipeline"),
      ],
      { tty: true },
    );
    expect(code).toBe(0);
    expect(stderr).toMatch(
      // eslint-disable-next-line no-control-regex -- the progress bar's terminal escape
      /\r\x1b\[K\[#{12}\.{12}\] train 1\/2 rapl-sysfs\/CounterOnly\/AbsPower\/(LinearRegression|SGDRegressor)Trainer/,
    );
    expect(stderr).toMatch(
      // eslint-disable-next-line no-control-regex -- the progress bar's terminal escape
      /\r\x1b\[K\[#{24}\] train 2\/2 rapl-sysfs\/CounterOnly\/AbsPower\/(LinearRegression|SGDRegressor)Trainer/,
    );
    expect(stderr.endsWith("\r\x1b[K")).toBe(true);
    expect(stdout).toMatch(/^rapl-sysfs {2}AbsPower {2}CounterOnly {4}LinearRegressionTrainer_\d+ +[\d.]+ +published$/m);
    expect(stdout).toMatch(/^rapl-sysfs {2}AbsPower {2}CounterOnly {4}SGDRegressorTrainer_\d+ +[\d.]+ +published$/m);
    expect(stdout).toContain("pipeline cli_tty: 2 models published, 0 failed; metadata.json written\n");
  }, 120_000);

  it("explains command-line mistakes with exit code 2", async () => {
    const online = await run(["pipeline", "run", "--name", "x", "--input", COREMARK, "--online"]);
    expect(online.code).toBe(2);
    const hint = " (kepler-model pipeline --help lists the flags)\n";
    expect(online.stderr).toBe(`kepler-model pipeline: --online reads a live Prometheus: give --prometheus <url>${hint}`);
    const neither = await run(["pipeline", "run", "--name", "x"]);
    expect(neither.stderr).toBe(`kepler-model pipeline: give --input <response.json> or --prometheus <url>${hint}`);
    const action = await run(["pipeline", "go"]);
    expect(action.stderr).toBe(`kepler-model pipeline: expected run, stop or list${hint}`);
    // An unknown trainer is refused before the recording is read or sent.
    const trainer = await run([
      "pipeline",
      "run",
      "--name",
      "x",
      "--input",
      COREMARK,
      "--abs-trainers",
      "Nope,SGDRegressorTrainer",
    ]);
    expect(trainer.code).toBe(2);
    expect(trainer.stderr).toMatch(
      /^kepler-model pipeline: --abs-trainers: unknown trainer "Nope" \(known: [^\n]*SGDRegressorTrainer[^\n]*\)/,
    );
    expect(trainer.stderr.split("\n")).toHaveLength(2);
  });

  it("starts an online pipeline and stops it", async () => {
    const pipelineAddress = ["--pipeline-address", address("pipeline")];
    const started = await run([
      "pipeline",
      "run",
      "--online",
      "--name",
      "cli_online",
      "--prometheus",
      "http://127.0.0.1:1",
      "--interval",
      "3600",
      "--abs-trainers",
      "LinearRegressionTrainer",
      ...pipelineAddress,
    ]);
    expect(started.code).toBe(0);
    expect(started.stdout).toBe(
      "started online pipeline cli_online: running, every 3600 s, 0 training runs, 0 skipped (no new data), last run never\n",
    );
    // Nothing listens on port 1: the first run fails and says why; stop waits for it to end.
    const stopped = await run(["pipeline", "stop", "--name", "cli_online", ...pipelineAddress]);
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toMatch(
      /^stopped online pipeline cli_online: stopped, every 3600 s, 0 training runs, 0 skipped \(no new data\), last run \d{4}-\d\d-\d\dT[\d:.]+Z, last error: extractor: /,
    );
  });

  it("lists the pipelines; stopping a pipeline that does not run online is NOT_FOUND", async () => {
    const listed = await run(["pipeline", "list", "--pipeline-address", address("pipeline")]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain("cli_inline  3       0           acpi\n");
    const json = await run(["pipeline", "list", "--json", "--pipeline-address", address("pipeline")]);
    const { pipelines } = JSON.parse(json.stdout) as { pipelines: Array<{ pipelineName: string; modelCount: number }> };
    expect(pipelines.find((p) => p.pipelineName === "cli_inline")?.modelCount).toBe(3);
    const stopped = await run(["pipeline", "stop", "--name", "cli_inline", "--pipeline-address", address("pipeline")]);
    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toBe('kepler-model pipeline: NOT_FOUND: online pipeline "cli_inline" not found\n');
  });
});
