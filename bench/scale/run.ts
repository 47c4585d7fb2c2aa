// Scale (issue 19 item 4): the synthetic recording at 1x, 4x and 16x its size (containers and samples
// each x2 for 4x, x4 for 16x), extract (container level) + isolate (min) + train (linear trainers), each
// size in a fresh child process. Prints time per stage and the child's peak RSS (VmHWM), and the time
// ratio to 1x next to the size ratio, so linear growth reads as ratio ~ size.
//   npm run bench -- scale            # 1x, 4x, 16x
//   npm run bench -- scale --sizes=1,4
import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { BASE_SHAPE, writeSyntheticResponse } from "../support/synthetic-response.js";
import { ms, printTable } from "../support/measure.js";

const here = dirname(fileURLToPath(import.meta.url));

interface SizeResult {
  parseMs: number;
  extractMs: number;
  isolateMs: number;
  trainMs: number;
  totalMs: number;
  containerRows: number;
  isolatedRows: number;
  trainerResults: number;
  peakRssMiB: number;
}

function sizesFromFlags(): number[] {
  const flag = process.argv.find((arg) => arg.startsWith("--sizes="));
  return flag === undefined ? [1, 4, 16] : flag.slice("--sizes=".length).split(",").map(Number);
}

export default async function run(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "bench-scale-"));
  const rows: string[][] = [];
  let baseMs = Number.NaN;
  try {
    for (const size of sizesFromFlags()) {
      const factor = Math.sqrt(size);
      const shape = { containers: Math.round(BASE_SHAPE.containers * factor), samples: Math.round(BASE_SHAPE.samples * factor) };
      const file = join(dir, `recording-${size}x.json`);
      const bytes = await writeSyntheticResponse(file, shape);
      const child = spawnSync(process.execPath, ["--import", "tsx", join(here, "size-run.ts"), file], {
        encoding: "utf8",
        maxBuffer: 1 << 20,
        stdio: ["ignore", "pipe", "inherit"],
      });
      await rm(file);
      if (child.status !== 0) throw new Error(`size ${size}x failed (exit ${child.status ?? child.signal})`);
      const result = JSON.parse(child.stdout.trim().split("\n").at(-1)!) as SizeResult;
      if (size === 1) baseMs = result.totalMs;
      rows.push([
        `${size}x`,
        `${shape.containers} x ${shape.samples}`,
        (bytes / 2 ** 20).toFixed(0),
        String(result.containerRows),
        ms(result.parseMs),
        ms(result.extractMs),
        ms(result.isolateMs),
        ms(result.trainMs),
        ms(result.totalMs),
        Number.isNaN(baseMs) ? "-" : (result.totalMs / baseMs).toFixed(1),
        result.peakRssMiB.toFixed(0),
      ]);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  printTable(
    "extract (container) + isolate (min) + train (Linear, SGD, Polynomial; DynPower), one process per size",
    [
      "size",
      "containers x samples",
      "JSON MiB",
      "rows",
      "parse",
      "extract",
      "isolate",
      "train",
      "total",
      "time / 1x",
      "peak RSS MiB",
    ],
    rows,
  );
  process.stdout.write("goal: 16x total <= 17x the 1x total, peak RSS < 2048 MiB\n");
}
