// Benchmark dispatcher: runs bench/<name>/run.ts for every folder given on the command line, or for
// all folders that have one, each in its own Node process (large tables do not share a heap).
// A bench module exports a default async function that prints its own table (medians, ratios).
//   npm run bench                # every benchmark
//   npm run bench -- trainers    # only bench/trainers
//   npm run bench -- soak --minutes=5   # `--name=value` flags are passed on to each bench
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const childFlag = "--run-one";

async function runOne(name: string): Promise<void> {
  const module = (await import(pathToFileURL(join(here, name, "run.ts")).href)) as { default?: () => unknown };
  if (typeof module.default !== "function") throw new Error(`bench/${name}/run.ts has no default export to run`);
  await module.default();
}

function dispatch(): number {
  const available = readdirSync(here, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(here, entry.name, "run.ts")))
    .map((entry) => entry.name)
    .sort();
  const requested = process.argv.slice(2).filter((arg) => !arg.startsWith("-"));
  const unknown = requested.filter((name) => !available.includes(name));
  if (unknown.length > 0) {
    console.error(`unknown benchmark(s): ${unknown.join(", ")}; available: ${available.join(", ")}`);
    return 2;
  }
  let failed = 0;
  for (const name of requested.length > 0 ? requested : available) {
    console.log(`\n== bench/${name}`);
    const self = fileURLToPath(import.meta.url);
    const flags = process.argv.slice(2).filter((arg) => arg.startsWith("--"));
    const result = spawnSync(process.execPath, ["--import", "tsx", self, childFlag, name, ...flags], { stdio: "inherit" });
    if (result.status !== 0) {
      console.error(`bench/${name} failed (exit ${result.status ?? result.signal})`);
      failed++;
    }
  }
  return failed > 0 ? 1 : 0;
}

const childIndex = process.argv.indexOf(childFlag);
if (childIndex >= 0) {
  await runOne(process.argv[childIndex + 1]!);
} else {
  process.exitCode = dispatch();
}
