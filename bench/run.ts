// Benchmark dispatcher: runs bench/<name>/run.ts for every folder given on the command line, or for
// all folders that have one. Each case prints its own table (medians and ratios).
//   npm run bench                # every benchmark
//   npm run bench -- trainers    # only bench/trainers
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const available = readdirSync(here, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(here, entry.name, "run.ts")))
  .map((entry) => entry.name)
  .sort();
const requested = process.argv.slice(2).filter((arg) => !arg.startsWith("-"));
const unknown = requested.filter((name) => !available.includes(name));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(", ")}; available: ${available.join(", ")}`);
  process.exit(2);
}
let failed = 0;
for (const name of requested.length > 0 ? requested : available) {
  console.log(`\n== bench/${name}`);
  const result = spawnSync(process.execPath, ["--import", "tsx", join(here, name, "run.ts")], { stdio: "inherit" });
  if (result.status !== 0) {
    console.error(`bench/${name} failed (exit ${result.status ?? result.signal})`);
    failed++;
  }
}
process.exit(failed > 0 ? 1 : 0);
