// Prediction intervals of an estimate: split conformal from the model's held-out residuals (metadata.json
// `calibration`, written by the trainer). The half width per component at a level is the residuals' order
// statistic at level * (n + 1) (wasm-core conformalHalfWidth), computed once per (model, level) and kept; the
// bounds per row are prediction -/+ half width, the lower one clamped at 0 as the predictions are.
import { conformalHalfWidth, predictionBounds } from "../../../wasm-core/src/index.js";
import { InvalidInputError } from "../../domain/errors.js";

/** The default nominal coverage (90 %). */
export const DEFAULT_INTERVAL_LEVEL = 0.9;

/** A model's calibration: sorted absolute held-out residuals per component, and the half widths worked out so far. */
export class IntervalCalibration {
  private readonly widths = new Map<number, Map<string, number>>();

  constructor(private readonly residuals: ReadonlyMap<string, Float64Array>) {}

  /** Number of calibration rows of a component (0 when it has none). */
  rowCount(component: string): number {
    return this.residuals.get(component)?.length ?? 0;
  }

  /**
   * The coverage the intervals at `level` can have: `level`, or n / (n + 1) when a component has too few
   * residuals for it (n < level / (1 - level): its largest residual is used, whose expected coverage that is).
   */
  achievableLevel(level: number): number {
    let achievable = level;
    for (const sorted of this.residuals.values()) achievable = Math.min(achievable, sorted.length / (sorted.length + 1));
    return achievable;
  }

  /** Half width (watts) of each calibrated component's interval at `level`. */
  halfWidthsAt(level: number): ReadonlyMap<string, number> {
    let widths = this.widths.get(level);
    if (widths === undefined) {
      widths = new Map([...this.residuals].map(([component, sorted]) => [component, conformalHalfWidth(sorted, level)]));
      // Levels come from requests: keep a handful, not one per distinct value ever asked.
      if (this.widths.size >= 16) this.widths.clear();
      this.widths.set(level, widths);
    }
    return widths;
  }
}

/** Checks a requested level: strictly between 0 and 1. */
export function assertIntervalLevel(level: number, field = "interval_level"): number {
  if (!(Number.isFinite(level) && level > 0 && level < 1))
    throw new InvalidInputError(field, `must be strictly between 0 and 1 (e.g. 0.9 for 90 %), got ${level}`);
  return level;
}

/** Bounds of one component's predictions: lower = max(p - w, 0), upper = p + w. */
export function intervalBounds(
  powerWatts: Float64Array,
  halfWidthWatts: number,
): { lowerWatts: Float64Array; upperWatts: Float64Array } {
  return predictionBounds(powerWatts, halfWidthWatts);
}
