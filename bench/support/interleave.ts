// Helpers for benchmarks that time several contenders in one run (this checkout against a baseline
// checkout, against a floor or a reference): the order of each round, medians and per-round ratios.
// On a shared machine the load drifts within minutes, so only contenders timed side by side, round by
// round, can be compared; the spread of the per-round ratios shows how far one run can be trusted.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

/** The contenders in the order round `round` times them: rotated by one each round, so none is always first. */
export function roundOrder<T>(contenders: readonly T[], round: number): T[] {
  const count = contenders.length;
  if (count === 0) return [];
  const shift = ((round % count) + count) % count;
  return [...contenders.slice(shift), ...contenders.slice(0, shift)];
}

/** The median (for an even count, the upper of the two middle values, as the other bench tables use). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error("median of no values");
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}

/** The ratios of values timed in the same round: their median and their range. */
export interface RatioSpread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

/** numerators[i] / denominators[i] per round, summarised. */
export function perRoundRatios(numerators: readonly number[], denominators: readonly number[]): RatioSpread {
  if (numerators.length !== denominators.length || numerators.length === 0)
    throw new Error(`per-round ratios need equal, non-empty rounds (got ${numerators.length} and ${denominators.length})`);
  const ratios = numerators.map((value, round) => value / denominators[round]!);
  return { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) };
}

/** `1.012 (0.975-1.048)`: the median ratio and, in brackets, the lowest and highest round's. */
export function formatRatioSpread(spread: RatioSpread, digits = 3): string {
  return `${spread.median.toFixed(digits)} (${spread.min.toFixed(digits)}-${spread.max.toFixed(digits)})`;
}

/**
 * The folder of `--baseline=<dir>` among the arguments, made absolute; undefined without the flag. It must
 * be a built checkout: its bin/kepler-model.js and dist/kepler-model.mjs present (`npm ci && npm run build`).
 */
export function baselineDir(argv: readonly string[], cwd = process.cwd()): string | undefined {
  const flag = argv.find((arg) => arg.startsWith("--baseline="));
  if (flag === undefined) return undefined;
  const value = flag.slice("--baseline=".length);
  if (value === "") throw new Error("--baseline: expected the folder of a built checkout, got nothing");
  const dir = resolve(cwd, value);
  for (const file of ["bin/kepler-model.js", "dist/kepler-model.mjs"])
    if (!existsSync(join(dir, file)))
      throw new Error(`--baseline: ${join(dir, file)} is missing (the folder must be a checkout after npm ci && npm run build)`);
  return dir;
}

/** `--rounds=N` (a positive whole number), or undefined when it is not given. */
export function roundsFlag(argv: readonly string[]): number | undefined {
  const flag = argv.find((arg) => arg.startsWith("--rounds="));
  if (flag === undefined) return undefined;
  const rounds = Number(flag.slice("--rounds=".length));
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds: expected a whole number of rounds, got ${flag}`);
  return rounds;
}
