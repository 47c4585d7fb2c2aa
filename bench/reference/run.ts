// Side by side with the Python reference kepler-model-server (issue 19 item 5): node- and container-level
// extraction of the synthetic recording (200 containers x 1,200 samples), the user's command for it
// (`kepler-model extract --level container --out table.csv` against the reference's extractor plus pandas
// to_csv, as its CLI's extract writes) and the whole pipeline on the bundled coremark recording (both
// sources, CounterOnly, every trainer for AbsPower and DynPower, min isolator). Each case is a whole
// process (ours: bench/reference/ours-run.ts bundled, or the command's bundle as bin/kepler-model.js runs
// it, with a preload that reports its peak RSS; the reference: reference_run.py with its src/ on
// PYTHONPATH), runs interleaved (the order rotated each round), 3 each; medians, ratios, peak RSS.
//   REFERENCE_DIR=<checkout of the reference at 3829b62> [REFERENCE_PYTHON=/usr/bin/python3] npm run bench -- reference [--only=extract] [--rounds=N]
//     [--baseline=<dir>]
// --baseline=<dir>: <dir> is a built checkout of an earlier commit (npm ci && npm run build); its own
// ours-run.ts (bundled) and command bundle are a third contender in the same rounds (baseline-checkout.ts;
// <dir> is only read), and the table adds the baseline's time and peak RSS and HEAD/baseline ratios
// (below 1: HEAD faster or smaller).
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
import { refreshCommandBundle } from "../support/command-bundle.js";
import { baselineDir, formatRatioSpread, median, perRoundRatios, roundOrder, roundsFlag } from "../support/interleave.js";
import { printTable } from "../support/measure.js";
import { BASE_SHAPE, writeSyntheticResponse } from "../support/synthetic-response.js";
import { prepareBaseline } from "./baseline-checkout.js";

// Rounds per case; --rounds=N for more when a few per cent matter.
const DEFAULT_ROUNDS = 3;
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

type Contender = "ours" | "reference" | "baseline";

/** Node arguments of ours and of the baseline (undefined: the baseline has no counterpart), the reference's script arguments. */
interface Case {
  name: string;
  ours: string[];
  reference: string[];
  baseline: string[] | undefined;
}

/** One printed row: medians and ratios against the reference, and with --baseline against the baseline. */
function tableRow(name: string, runs: Record<Contender, Run[]>, withBaseline: boolean): string[] {
  const seconds = (contender: Contender) => median(runs[contender].map((r) => r.seconds));
  const rss = (contender: Contender) => median(runs[contender].map((r) => r.maxRssMiB));
  const row = [
    name,
    seconds("reference").toFixed(2),
    seconds("ours").toFixed(2),
    (seconds("reference") / seconds("ours")).toFixed(1),
    rss("reference").toFixed(0),
    rss("ours").toFixed(0),
    (rss("ours") / rss("reference")).toFixed(2),
  ];
  if (!withBaseline) return row;
  if (runs.baseline.length === 0) return [...row, "-", "-", "-", "-"];
  const oursSeconds = runs.ours.map((r) => r.seconds);
  const baselineSeconds = runs.baseline.map((r) => r.seconds);
  return [
    ...row,
    seconds("baseline").toFixed(2),
    formatRatioSpread(perRoundRatios(oursSeconds, baselineSeconds)),
    rss("baseline").toFixed(0),
    (rss("ours") / rss("baseline")).toFixed(2),
  ];
}

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
  const baselineRoot = baselineDir(process.argv);
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
    const extractArgs = (out: string) => [
      ...["extract", "--input", synthetic, "--source", "rapl-sysfs", "--feature-group", "BPFOnly"],
      ...["--level", "container", "--out", out],
    ];
    // The baseline's counterparts (--baseline): its ours-run.ts bundle and its command bundle, from this run's folder.
    const baselineModels = join(dir, "baseline-models");
    const baseline = baselineRoot === undefined ? undefined : await prepareBaseline(baselineRoot, dir, OURS_BUNDLE);
    const baselineBundleArgs = (args: string[]) =>
      baseline?.oursRunBundle === undefined ? undefined : [baseline.oursRunBundle, ...args];
    const cases: Case[] = [
      {
        name: "node-level extract, synthetic",
        ours: bundleArgs(["extract-node", synthetic]),
        reference: ["extract-node", synthetic],
        baseline: baselineBundleArgs(["extract-node", synthetic]),
      },
      {
        name: "container-level extract, synthetic",
        ours: bundleArgs(["extract-container", synthetic]),
        reference: ["extract-container", synthetic],
        baseline: baselineBundleArgs(["extract-container", synthetic]),
      },
      {
        name: "kepler-model extract --level container --out table.csv, synthetic",
        ours: commandArgs(extractArgs(join(dir, "ours-table.csv"))),
        reference: ["extract-container-csv", synthetic, join(dir, "reference-table.csv")],
        baseline:
          baseline === undefined
            ? undefined
            : ["--import", baseline.peakRssPreload, baseline.commandScript, ...extractArgs(join(dir, "baseline-table.csv"))],
      },
      {
        name: `whole coremark pipeline, 2 sources x Abs+Dyn x ${listTrainers().length} trainers`,
        ours: bundleArgs(["pipeline", coremark, trainers, oursModels]),
        reference: ["pipeline", coremark, trainers],
        baseline: baselineBundleArgs(["pipeline", coremark, trainers, baselineModels]),
      },
    ];
    // --only=<text>: just the cases whose name holds it (e.g. --only=extract).
    const only = process.argv.find((arg) => arg.startsWith("--only="))?.slice("--only=".length) ?? "";
    const rounds = roundsFlag(process.argv) ?? DEFAULT_ROUNDS;
    const rows: string[][] = [];
    for (const testCase of cases.filter((c) => c.name.includes(only))) {
      const runs: Record<Contender, Run[]> = { ours: [], reference: [], baseline: [] };
      const contenders: Contender[] = ["ours", "reference", ...(testCase.baseline === undefined ? [] : (["baseline"] as const))];
      for (let round = 0; round < rounds; round++) {
        for (const contender of roundOrder(contenders, round)) {
          if (contender === "reference")
            runs.reference.push(
              await timedChild(python, [join(here, "reference_run.py"), ...testCase.reference], {
                ...pythonEnv,
                MODEL_PATH: join(dir, "reference-models"),
              }),
            );
          else runs[contender].push(await timedChild(process.execPath, testCase[contender]!, process.env));
          // Each pipeline round starts from an empty model folder, removed outside the timed process as the
          // reference's MODEL_PATH is not removed in its.
          for (const models of [oursModels, baselineModels]) await rm(models, { recursive: true, force: true });
        }
      }
      rows.push(tableRow(testCase.name, runs, baseline !== undefined));
    }
    for (const note of baseline?.notes ?? []) console.log(note);
    printTable(
      `Ours against the Python reference (${python}, whole processes, interleaved, order rotated per round, median of ${rounds})` +
        (baseline === undefined
          ? ""
          : `\nwith --baseline: "ours" is this checkout (HEAD, its bundles refreshed); HEAD/baseline time is the median of the ` +
            `per-round ratios (lowest-highest round), RSS the ratio of the medians`),
      [
        ...["case", "reference s", "ours s", "reference/ours", "reference peak MiB", "ours peak MiB", "ours/reference RSS"],
        ...(baseline === undefined ? [] : ["baseline s", "HEAD/baseline time", "baseline peak MiB", "HEAD/baseline RSS"]),
      ],
      rows,
    );
    // The command's CSVs and the reference's to_csv of the same table, compared byte for byte.
    const [oursCsv, referenceCsv, baselineCsv] = await Promise.all(
      ["ours-table.csv", "reference-table.csv", "baseline-table.csv"].map((name) =>
        readFile(join(dir, name)).catch(() => undefined),
      ),
    );
    if (oursCsv !== undefined && referenceCsv !== undefined)
      console.log(
        `extract --out table.csv: ours ${oursCsv.byteLength} bytes, the reference's ${referenceCsv.byteLength} bytes, ${oursCsv.equals(referenceCsv) ? "byte-identical" : "DIFFERENT"}`,
      );
    if (oursCsv !== undefined && baselineCsv !== undefined)
      console.log(
        `extract --out table.csv: the baseline's ${baselineCsv.byteLength} bytes, ${oursCsv.equals(baselineCsv) ? "byte-identical to ours" : "DIFFERENT from ours"}`,
      );
  } finally {
    await rm(dir, { recursive: true, force: true });
    await removeOursRun();
  }
}

async function bundleOursRun(): Promise<string> {
  refreshCommandBundle();
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
