// Side by side with the Python reference kepler-model-server (issue 19 item 5): node- and container-level
// extraction of the synthetic recording (200 containers x 1,200 samples), the user's command for it
// (`kepler-model extract --level container --out table.csv` against the reference's extractor plus pandas
// to_csv, as its CLI's extract writes) and the whole pipeline on the bundled coremark recording (both
// sources, CounterOnly, every trainer for AbsPower and DynPower, min isolator). Each case is a whole
// process (ours: bench/reference/ours-run.ts bundled, or the command's bundle as bin/kepler-model.js runs
// it, with a preload that reports its peak RSS; the reference: reference_run.py with its src/ on
// PYTHONPATH), runs interleaved, 3 each; medians, ratios, peak RSS.
//   REFERENCE_DIR=<checkout of the reference at 3829b62> [REFERENCE_PYTHON=/usr/bin/python3] npm run bench -- reference [--only=extract]
// Needs Debian's python3-sklearn, python3-pandas, python3-xgboost, python3-cpuinfo, python3-psutil and
// python3-pyudev.
// Without REFERENCE_DIR, or when the reference does not import, it says why and measures nothing.
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { build } from "esbuild";
// @ts-expect-error a plain-JavaScript build module without types
import { NODE_BUNDLE_OPTIONS } from "../../bin/bundle-options.mjs";
import { listTrainers } from "../../services/trainer/domain/trainer-registry.js";
import { printTable } from "../support/measure.js";
import { BASE_SHAPE, writeSyntheticResponse } from "../support/synthetic-response.js";

const ROUNDS = 3;
// ours-run.ts bundled into dist/ (beside the command bundle whose workers it starts), removed after.
const OURS_BUNDLE = "bench-reference-ours";
const here = new URL(".", import.meta.url).pathname;
const root = new URL("../../", import.meta.url).pathname;

interface Run {
  seconds: number;
  maxRssMiB: number;
  rows: number;
}

function timedChild(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (data: Buffer) => (out += data.toString()));
    child.stderr.on("data", (data: Buffer) => (err += data.toString()));
    child.on("exit", (code) => {
      const seconds = (performance.now() - started) / 1000;
      const line = out.trim().split("\n").at(-1) ?? "";
      if (code !== 0 || !line.startsWith("{")) {
        reject(new Error(`${command} ${args.join(" ")} exited ${code}: ${err.slice(-2000)}`));
        return;
      }
      const parsed = JSON.parse(line) as { rows: number; maxRssMiB: number };
      resolve({ seconds, maxRssMiB: parsed.maxRssMiB, rows: parsed.rows });
    });
  });
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export default async function run(): Promise<void> {
  const referenceDir = process.env.REFERENCE_DIR ?? "";
  const python = process.env.REFERENCE_PYTHON ?? "/usr/bin/python3";
  if (referenceDir === "" || !existsSync(join(referenceDir, "src/kepler_model"))) {
    console.log("skipped: set REFERENCE_DIR to a checkout of sustainable-computing-io/kepler-model-server (3829b62)");
    return;
  }
  const pythonEnv = { ...process.env, PYTHONPATH: join(referenceDir, "src") };
  const probe = spawnSync(python, ["-c", "import sklearn, pandas, xgboost, kepler_model.train"], {
    env: pythonEnv,
    encoding: "utf8",
  });
  if (probe.status !== 0) {
    console.log(`skipped: the reference does not import with ${python}: ${probe.stderr.trim().split("\n").at(-1)}`);
    return;
  }
  const dir = await mkdtemp(join(tmpdir(), "bench-reference-"));
  // Ours runs as the product does, bundled (no TypeScript compiled at start): ours-run.ts is bundled into
  // dist/ beside the command's bundle, whose worker modules it starts (npm run build:cli refreshes them).
  const oursBundle = await bundleOursRun();
  try {
    const synthetic = join(dir, "synthetic.json");
    await writeSyntheticResponse(synthetic, BASE_SHAPE);
    const coremark = join(dir, "coremark.json");
    await writeFile(
      coremark,
      gunzipSync(await readFile(new URL("../../test/fixtures/extractor/coremark-2023-09-28.json.gz", import.meta.url))),
    );
    const trainers = listTrainers()
      .map((trainer) => trainer.name)
      .join(",");
    const oursModels = join(dir, "ours-models");
    const bundleArgs = (args: string[]) => [oursBundle, ...args];
    // The command as a user runs it, from the bundle npm run build:cli just refreshed (ours-command.mjs).
    const commandArgs = (args: string[]) => [
      "--import",
      join(here, "peak-rss-preload.mjs"),
      join(here, "ours-command.mjs"),
      ...args,
    ];
    const cases = [
      {
        name: "node-level extract, synthetic",
        ours: bundleArgs(["extract-node", synthetic]),
        reference: ["extract-node", synthetic],
      },
      {
        name: "container-level extract, synthetic",
        ours: bundleArgs(["extract-container", synthetic]),
        reference: ["extract-container", synthetic],
      },
      {
        name: "kepler-model extract --level container --out table.csv, synthetic",
        ours: commandArgs([
          ...["extract", "--input", synthetic, "--source", "rapl-sysfs", "--feature-group", "BPFOnly"],
          ...["--level", "container", "--out", join(dir, "ours-table.csv")],
        ]),
        reference: ["extract-container-csv", synthetic, join(dir, "reference-table.csv")],
      },
      {
        name: `whole coremark pipeline, 2 sources x Abs+Dyn x ${listTrainers().length} trainers`,
        ours: bundleArgs(["pipeline", coremark, trainers, oursModels]),
        reference: ["pipeline", coremark, trainers],
      },
    ];
    // --only=<text>: just the cases whose name holds it (e.g. --only=extract).
    const only = process.argv.find((arg) => arg.startsWith("--only="))?.slice("--only=".length) ?? "";
    const rows: string[][] = [];
    for (const { name, ours: oursArgs, reference: referenceArgs } of cases.filter((c) => c.name.includes(only))) {
      const ours: Run[] = [];
      const reference: Run[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        ours.push(await timedChild(process.execPath, oursArgs, process.env));
        // Each pipeline round starts from an empty model folder, removed outside the timed process as the
        // reference's MODEL_PATH is not removed in its.
        await rm(oursModels, { recursive: true, force: true });
        reference.push(
          await timedChild(python, [join(here, "reference_run.py"), ...referenceArgs], {
            ...pythonEnv,
            MODEL_PATH: join(dir, "reference-models"),
          }),
        );
      }
      const [oursSeconds, referenceSeconds] = [median(ours.map((r) => r.seconds)), median(reference.map((r) => r.seconds))];
      const [oursRss, referenceRss] = [median(ours.map((r) => r.maxRssMiB)), median(reference.map((r) => r.maxRssMiB))];
      rows.push([
        name,
        referenceSeconds.toFixed(2),
        oursSeconds.toFixed(2),
        (referenceSeconds / oursSeconds).toFixed(1),
        referenceRss.toFixed(0),
        oursRss.toFixed(0),
        (oursRss / referenceRss).toFixed(2),
      ]);
    }
    printTable(
      `Ours against the Python reference (${python}, whole processes, interleaved, median of ${ROUNDS})`,
      ["case", "reference s", "ours s", "reference/ours", "reference peak MiB", "ours peak MiB", "ours/reference RSS"],
      rows,
    );
    // The command's CSV and the reference's to_csv of the same table, compared byte for byte.
    const [oursCsv, referenceCsv] = await Promise.all(
      ["ours-table.csv", "reference-table.csv"].map((name) => readFile(join(dir, name)).catch(() => undefined)),
    );
    if (oursCsv !== undefined && referenceCsv !== undefined)
      console.log(
        `extract --out table.csv: ours ${oursCsv.byteLength} bytes, the reference's ${referenceCsv.byteLength} bytes, ${oursCsv.equals(referenceCsv) ? "byte-identical" : "DIFFERENT"}`,
      );
  } finally {
    await rm(dir, { recursive: true, force: true });
    await removeOursRun();
  }
}

async function bundleOursRun(): Promise<string> {
  const built = spawnSync(process.execPath, [join(root, "bin/build-cli.mjs")], { cwd: root, encoding: "utf8" });
  if (built.status !== 0) throw new Error(`npm run build:cli failed: ${built.stderr}`);
  // Split as the command is, so modules loaded on demand (the S3 SDK, tracing) stay out of the start.
  await build({
    entryPoints: { [OURS_BUNDLE]: join(here, "ours-run.ts") },
    outdir: join(root, "dist"),
    chunkNames: `${OURS_BUNDLE}-chunk-[hash]`,
    ...NODE_BUNDLE_OPTIONS,
  });
  return join(root, "dist", `${OURS_BUNDLE}.mjs`);
}

async function removeOursRun(): Promise<void> {
  const dist = new URL("../../dist/", import.meta.url).pathname;
  for (const name of await readdir(dist)) if (name.startsWith(OURS_BUNDLE)) await rm(join(dist, name), { force: true });
}
