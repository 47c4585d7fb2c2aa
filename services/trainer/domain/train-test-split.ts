// The train/test split of one node type's rows (spec §5.3). The reference calls sklearn's
// train_test_split(test_size=0.1, shuffle=True) without a seed, separately for every component; we
// draw one reproducible split per node type from the seed and share it across components and trainers
// (docs/deviations.md), or take an explicit list of test timestamps.
import { complementRows, indexOfValues, permutation } from "../../../wasm-core/src/index.js";
import { InvalidInputError } from "../../domain/errors.js";

/** How to choose the test rows. */
export type SplitSpec = { kind: "seeded"; seed: number } | { kind: "timestamps"; testTimestampsSeconds: Float64Array };

/** Row indices (into the node type's rows) of the two parts. */
export interface RowSplit {
  trainRows: Uint32Array;
  testRows: Uint32Array;
}

/** sklearn's test_size for the reference trainers. */
export const TEST_FRACTION = 0.1;

/**
 * Splits n rows. Seeded: sklearn ShuffleSplit's arithmetic, n_test = ceil(0.1 * n) (float product, as
 * Python computes it), test = the first n_test of a seeded permutation, train = the rest in permutation
 * order. Timestamps: the rows whose timestamp is listed (in the list's order) are the test rows.
 */
export function splitRows(timestamps: Float64Array, spec: SplitSpec, nodeType: number): RowSplit {
  const n = timestamps.length;
  if (n < 2) {
    throw new InvalidInputError(
      "table",
      `node type ${nodeType} has ${n} row${n === 1 ? "" : "s"}; a train/test split needs at least 2`,
    );
  }
  if (spec.kind === "seeded") {
    const testCount = Math.ceil(TEST_FRACTION * n);
    const order = permutation(n, spec.seed);
    return { testRows: order.slice(0, testCount), trainRows: order.slice(testCount) };
  }
  const found = indexOfValues(timestamps, spec.testTimestampsSeconds);
  const testRows = Uint32Array.from(found.filter((row) => row >= 0));
  if (testRows.length === 0) {
    throw new InvalidInputError("test_timestamps_seconds", `no test timestamp falls on a row of node type ${nodeType}`);
  }
  if (testRows.length === n) {
    throw new InvalidInputError(
      "test_timestamps_seconds",
      `every row of node type ${nodeType} is a test row; at least one training row is needed`,
    );
  }
  return { testRows, trainRows: complementRows(n, testRows) };
}

/**
 * Checks explicit test timestamps against the whole table: each must be a row's timestamp. Returns
 * them without duplicates, in the given order.
 */
export function assertTestTimestamps(tableTimestamps: Float64Array, testTimestamps: readonly number[]): Float64Array {
  const unique = Float64Array.from(new Set(testTimestamps));
  const found = indexOfValues(tableTimestamps, unique);
  const missing = found.indexOf(-1);
  if (missing >= 0) {
    throw new InvalidInputError("test_timestamps_seconds", `timestamp ${unique[missing]} is not a row of the table`);
  }
  return unique;
}
