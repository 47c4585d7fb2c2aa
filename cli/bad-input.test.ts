// Every bad input the CLI meets is refused before any work: a non-zero exit, exactly one line on stderr
// naming the problem, nothing on stdout (no progress, no partial table) and no file written. Servers are
// real (registry and estimator on 127.0.0.1 port 0, an empty model folder); "no server" is a port that
// was just closed.
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../services/kit/observe/logger.js";
import { type MeshHandle, startMesh } from "../services/mesh/start-mesh.js";
import { extractorFixturePath } from "../test/support/extractor-fixtures.js";
import { runCliCaptured } from "../test/support/run-cli.js";

const COREMARK = extractorFixturePath("coremark-2023-09-28.json.gz");

let dir: string;
let out: string;
let mesh: MeshHandle;
let closedAddress: string;
const address = (name: string) => mesh.servers.find((server) => server.name === name)!.address;
const path = (name: string) => join(dir, name);

async function freedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cli-bad-input-"));
  out = path("out");
  await mkdir(out);
  const recording = gunzipSync(readFileSync(COREMARK));
  await writeFile(path("half.json"), recording.subarray(0, Math.floor(recording.length / 2)));
  await writeFile(path("notes.json"), "not json\n");
  await writeFile(path("empty.json"), "{}");
  closedAddress = `127.0.0.1:${await freedPort()}`;
  mesh = await startMesh({
    logger: silentLogger(),
    services: ["registry", "estimator"],
    flags: { "registry-port": "0", "estimator-port": "0", "model-path": path("models"), "registry-rescan-ms": "0" },
  });
}, 60_000);

afterAll(async () => {
  await mesh?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

const usage = (command: string) => ` (kepler-model ${command} --help lists the flags)`;
const extractTo = (input: string) => ["extract", "--input", input, "--source", "rapl-sysfs", "--feature-group", "CounterOnly"];

interface Case {
  readonly name: string;
  readonly argv: () => string[];
  readonly code: 1 | 2;
  /** The whole stderr line (string) or its pattern. */
  readonly line: () => string | RegExp;
}

const CASES: readonly Case[] = [
  {
    name: "missing input file",
    argv: () => [...extractTo(path("nope.json")), "--out", join(out, "table.csv")],
    code: 2,
    line: () => `kepler-model extract: --input ${path("nope.json")}: no such file${usage("extract")}`,
  },
  {
    name: "input that is not JSON",
    argv: () => ["validate", "--input", path("notes.json")],
    code: 1,
    line: () => `kepler-model validate: ${path("notes.json")}: malformed JSON at byte 0: expected a JSON value, found 'n'`,
  },
  {
    name: "truncated recording",
    argv: () => [...extractTo(path("half.json")), "--out", join(out, "table.csv")],
    code: 1,
    line: () => new RegExp(`^kepler-model extract: ${path("half.json")}: malformed JSON at byte \\d+: expected [^\\n]+$`),
  },
  {
    name: "recording with no metrics",
    argv: () => ["validate", "--input", path("empty.json")],
    code: 1,
    line: () =>
      `kepler-model validate: ${path("empty.json")} holds no metrics: record a window of Kepler's metrics with \`kepler-model query\``,
  },
  {
    name: "pod that is not in the recording",
    argv: () => ["validate", "--input", COREMARK, "--pod", "no-such-pod"],
    code: 1,
    line: () => `kepler-model validate: no container series in ${COREMARK} has a pod_name containing "no-such-pod"`,
  },
  {
    name: "output folder that does not exist",
    argv: () => [...extractTo(COREMARK), "--out", join(out, "no", "table.csv")],
    code: 2,
    line: () =>
      `kepler-model extract: --out ${join(out, "no", "table.csv")}: no folder ${join(out, "no")} to write into${usage("extract")}`,
  },
  {
    name: "unknown trainer (train)",
    argv: () => [
      ...["train", "--input", COREMARK, "--source", "acpi", "--feature-group", "CounterOnly"],
      ...["--trainers", "Nope,SGDRegressorTrainer", "--model-path", join(out, "models")],
    ],
    code: 2,
    line: () => /^kepler-model train: --trainers: unknown trainer "Nope" \(known: [^)]*SGDRegressorTrainer[^)]*\) \(kepler-model/,
  },
  {
    name: "unknown trainer (pipeline run), refused before calling the server",
    argv: () => [
      "pipeline",
      "run",
      "--pipeline",
      "p",
      "--input",
      COREMARK,
      "--dyn-trainers",
      "Nope",
      "--pipeline-address",
      closedAddress,
    ],
    code: 2,
    line: () => /^kepler-model pipeline: --dyn-trainers: unknown trainer "Nope" \(known: /,
  },
  {
    name: "unknown energy source",
    argv: () => [
      "extract",
      "--input",
      COREMARK,
      "--source",
      "nope",
      "--feature-group",
      "CounterOnly",
      "--out",
      join(out, "t.csv"),
    ],
    code: 2,
    line: () =>
      /^kepler-model extract: --source: unknown energy source "nope" \(known: [^\n]*acpi[^\n]*\) \(kepler-model extract --help/,
  },
  {
    name: "unknown feature group",
    argv: () => [
      "train",
      "--input",
      COREMARK,
      "--source",
      "acpi",
      "--feature-group",
      "Nope",
      "--model-path",
      join(out, "models"),
    ],
    code: 2,
    line: () => /^kepler-model train: --feature-group: unknown feature group "Nope" \(known: [^\n]*CounterOnly/,
  },
  {
    name: "pipeline flag missing",
    argv: () => ["pipeline", "run", "--input", COREMARK, "--pipeline-address", closedAddress],
    code: 2,
    line: () => `kepler-model pipeline: --pipeline is required${usage("pipeline")}`,
  },
  {
    name: "pipeline the registry does not hold (estimate)",
    argv: () => [
      "estimate",
      "--metrics",
      "cpu_cycles",
      "--values",
      "1",
      "--pipeline",
      "nope",
      "--estimator-address",
      address("estimator"),
    ],
    code: 1,
    line: () => 'kepler-model estimate: FAILED_PRECONDITION: pipeline "nope" not found',
  },
  {
    name: "pipeline the registry does not hold (isolate --isolator trainer), before extracting",
    argv: () => [
      ...["isolate", "--input", COREMARK, "--source", "rapl-sysfs", "--feature-group", "CounterOnly", "--isolator", "trainer"],
      ...["--abs-pipeline-name", "nope", "--out", join(out, "isolated.csv"), "--registry-address", address("registry")],
    ],
    code: 1,
    line: () =>
      "kepler-model isolate: --abs-pipeline-name nope: the registry holds no AbsPower model of that pipeline for rapl-sysfs",
  },
  {
    name: "pipeline the registry does not hold (models list)",
    argv: () => ["models", "list", "--pipeline", "nope", "--registry-address", address("registry")],
    code: 1,
    line: () =>
      "kepler-model models: no models in pipeline nope: the registry holds none: train one with `kepler-model pipeline run` or `kepler-model models import`",
  },
  {
    name: "node type with no models (models best --json)",
    argv: () => ["models", "best", "--node-type", "1", "--json", "--registry-address", address("registry")],
    code: 1,
    line: () =>
      "kepler-model models: no models: the registry holds none: train one with `kepler-model pipeline run` or `kepler-model models import`",
  },
  {
    name: "node type that is not an integer (models list), before calling the registry",
    argv: () => ["models", "list", "--node-type", "x", "--registry-address", closedAddress],
    code: 2,
    line: () => `kepler-model models: --node-type must be an integer >= -1, got "x"${usage("models")}`,
  },
  {
    name: "no registry (models list)",
    argv: () => ["models", "list", "--json", "--registry-address", closedAddress],
    code: 1,
    line: () => `kepler-model models: nothing answers at ${closedAddress}: start it with \`npm start\` or set --registry-address`,
  },
  {
    name: "no estimator",
    argv: () => ["estimate", "--metrics", "cpu_cycles", "--values", "1", "--estimator-address", closedAddress],
    code: 1,
    line: () =>
      `kepler-model estimate: nothing answers at ${closedAddress}: start it with \`npm start\` or set --estimator-address`,
  },
  {
    name: "no pipeline service",
    argv: () => ["pipeline", "run", "--pipeline", "p", "--input", COREMARK, "--pipeline-address", closedAddress],
    code: 1,
    line: () =>
      `kepler-model pipeline: nothing answers at ${closedAddress}: start it with \`npm start\` or set --pipeline-address`,
  },
  {
    name: "no registry (isolate --isolator trainer), before extracting",
    argv: () => [
      ...["isolate", "--input", COREMARK, "--source", "rapl-sysfs", "--feature-group", "CounterOnly", "--isolator", "trainer"],
      ...["--out", join(out, "isolated.csv"), "--registry-address", closedAddress],
    ],
    code: 1,
    line: () =>
      `kepler-model isolate: nothing answers at ${closedAddress}: start it with \`npm start\` or set --registry-address`,
  },
];

describe("kepler-model refuses bad input before doing any work", () => {
  for (const { name, argv, code, line } of CASES) {
    it(name, async () => {
      const result = await runCliCaptured(argv());
      expect(result.code).toBe(code);
      const lines = result.stderr.split("\n");
      expect(lines).toHaveLength(2);
      expect(lines[1]).toBe("");
      const expected = line();
      if (typeof expected === "string") expect(lines[0]).toBe(expected);
      else expect(lines[0]).toMatch(expected);
      expect(result.stdout).toBe("");
      expect(await readdir(out)).toEqual([]);
    });
  }
});
