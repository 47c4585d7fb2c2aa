// Bounds on a Prometheus query window, checked before any query is planned: a tiny step over a long
// window once made the server precompute 90.9 M sub-ranges and run out of heap (issue 17).
import { InvalidInputError } from "../domain/errors.js";

/** Prometheus refuses query_range when a series would have more points than this. */
export const MAX_POINTS_PER_SERIES = 11_000;
/** Most query_range requests one metric's window is split into. */
const MAX_QUERY_RANGES = 256;
/** Most points per series a window may span (2,816,000: e.g. 32 days at a 1 s step). */
const MAX_WINDOW_POINTS = MAX_POINTS_PER_SERIES * MAX_QUERY_RANGES;
/** Prometheus resolves time in milliseconds; a finer step means nothing to it. */
const MIN_STEP_SECONDS = 0.001;

/** A window to bound: Unix seconds and the query step. */
export interface WindowExtent {
  readonly startSeconds: number;
  readonly endSeconds: number;
  readonly stepSeconds: number;
}

/**
 * Throws InvalidInputError naming `field` (e.g. `window`) or its `step_seconds` unless the window is
 * finite, ordered, has a step of at least 1 ms and spans at most MAX_WINDOW_POINTS steps.
 */
export function assertWindowBounds(window: WindowExtent, field: string): void {
  const { startSeconds, endSeconds, stepSeconds } = window;
  if (!Number.isFinite(startSeconds) || !Number.isFinite(endSeconds))
    throw new InvalidInputError(field, "start and end must be finite Unix times");
  if (!(stepSeconds > 0) || !Number.isFinite(stepSeconds))
    throw new InvalidInputError(`${field}.step_seconds`, `must be positive, got ${stepSeconds}`);
  if (stepSeconds < MIN_STEP_SECONDS)
    throw new InvalidInputError(`${field}.step_seconds`, `must be at least ${MIN_STEP_SECONDS} s, got ${stepSeconds}`);
  if (endSeconds < startSeconds) throw new InvalidInputError(field, `end ${endSeconds} is before start ${startSeconds}`);
  const points = Math.floor((endSeconds - startSeconds) / stepSeconds) + 1;
  if (points > MAX_WINDOW_POINTS)
    throw new InvalidInputError(
      field,
      `${endSeconds - startSeconds} s at a ${stepSeconds} s step is ${points} points per series; at most ${MAX_WINDOW_POINTS} (${MAX_QUERY_RANGES} queries of ${MAX_POINTS_PER_SERIES}): shorten the window or raise the step`,
    );
}
