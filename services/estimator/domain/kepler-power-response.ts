// The sidecar's PowerResponse text, byte for byte as the reference's json.dumps writes it
// (`{"powers": {"package": [..], ...}, "msg": "", "core_ratio": 1.0}`), made to fit Kepler's single
// 4096-byte read (kepler-collector §1.1): Kepler never reads a second time, so a longer reply would be
// cut and fail to decode. See docs/deviations.md for the size rule and the error shapes.
import { formatPythonFloat, formatPythonJsonString } from "../../domain/python-repr.js";

/** Kepler's read buffer for the whole response (`buf := make([]byte, 4096)`, one conn.Read). */
export const KEPLER_READ_BYTES = 4096;

/** Watts per component for each request row, and the core ratio reported with them. */
export interface KeplerPowers {
  componentPowers: ReadonlyArray<{ component: string; powerWatts: Float64Array }>;
  rowCount: number;
  coreRatio: number;
}

/** The response text and how its numbers were written. */
export interface EncodedPowerResponse {
  text: string;
  /** full: shortest round-trip digits; milliwatt: rounded so Kepler's milliwatts are unchanged; error: did not fit. */
  precision: "full" | "milliwatt" | "error";
}

type FormatWatts = (watts: number) => string;

/** How the client decodes `powers`, and how many bytes it reads. */
export interface ResponseOptions {
  /** Kepler v0.4/v0.5's total-power call: `powers` is the list of platform watts, no core ratio. */
  powersAsList?: boolean;
  limitBytes?: number;
}

function responseText(powers: KeplerPowers, format: FormatWatts, powersAsList: boolean): string {
  if (powersAsList) {
    const watts = powers.componentPowers[0]?.powerWatts ?? new Float64Array();
    return `{"powers": [${Array.from(watts, format).join(", ")}], "msg": ""}`;
  }
  const entries = powers.componentPowers.map(
    ({ component, powerWatts }) => `${formatPythonJsonString(component)}: [${Array.from(powerWatts, format).join(", ")}]`,
  );
  return `{"powers": {${entries.join(", ")}}, "msg": "", "core_ratio": ${formatPythonFloat(powers.coreRatio)}}`;
}

/** Go's uint64(watts * 1000 * ratio) for the values Kepler computes with (truncation toward zero). */
function keplerMilliwatts(watts: number, ratio: number): number {
  return Math.trunc(watts * 1000 * ratio);
}

/**
 * The shortest decimal (fewest fraction digits) from which Kepler computes the same milliwatts as from
 * `watts`, for each core ratio it may apply (1, and min(core_ratio, 1) on idle calls).
 */
function milliwattFormat(ratios: readonly number[]): FormatWatts {
  return (watts) => {
    for (let digits = 0; digits <= 17; digits++) {
      const rounded = Number(watts.toFixed(digits));
      if (ratios.every((ratio) => keplerMilliwatts(rounded, ratio) === keplerMilliwatts(watts, ratio)))
        return formatPythonFloat(rounded);
    }
    return formatPythonFloat(watts);
  };
}

/**
 * An error response that makes Kepler skip this estimate without crashing (Kepler ignores `msg`):
 * `{"powers": {}, ...}` for one row, which Kepler decodes with no error and reads as no power (its
 * start-up probe then still succeeds, node models report nothing this tick); `{"powers": [], ...}` for
 * several rows, because Kepler's process path indexes one power per process when no error is returned
 * and would panic on an empty map, while a list fails its decode and the estimate is skipped. A v0.5
 * total-power client decodes a list, so it gets the map, which fails its decode instead.
 */
export function encodeErrorResponse(
  message: string,
  rowCount: number,
  { powersAsList = false, limitBytes = KEPLER_READ_BYTES }: ResponseOptions = {},
): string {
  const powers = !powersAsList && rowCount > 1 ? "[]" : "{}";
  const shell = (msg: string) => `{"powers": ${powers}, "msg": ${formatPythonJsonString(msg)}}`;
  let msg = message;
  let text = shell(msg);
  // Long reasons (e.g. feature lists) are shortened so the error itself fits the single read.
  while (text.length > limitBytes && msg.length > 0) {
    msg = `${msg.slice(0, Math.max(0, msg.length - (text.length - limitBytes) - 3))}...`.replace(/^\.\.\.$/, "");
    text = shell(msg);
  }
  return text;
}

/**
 * Encodes an estimate: full precision when it fits in `limitBytes`, else at Kepler's own milliwatt
 * resolution, else an error response that names the row count and the limit. Watts are never negative.
 */
export function encodePowerResponse(powers: KeplerPowers, options: ResponseOptions = {}): EncodedPowerResponse {
  const { powersAsList = false, limitBytes = KEPLER_READ_BYTES } = options;
  const clamped: KeplerPowers = {
    ...powers,
    componentPowers: powers.componentPowers.map(({ component, powerWatts }) => ({
      component,
      powerWatts: powerWatts.map((watts) => Math.max(0, watts)),
    })),
  };
  const nonFinite = clamped.componentPowers.find(({ powerWatts }) => powerWatts.some((watts) => !Number.isFinite(watts)));
  if (nonFinite !== undefined) {
    // Python would write NaN/Infinity, which Go cannot decode; say what happened instead.
    return {
      text: encodeErrorResponse(`the model predicted a non-finite ${nonFinite.component} power`, powers.rowCount, options),
      precision: "error",
    };
  }
  const full = responseText(clamped, formatPythonFloat, powersAsList);
  if (full.length <= limitBytes) return { text: full, precision: "full" };
  const idleRatio = Math.min(powers.coreRatio, 1);
  const ratios = idleRatio > 0 && idleRatio !== 1 ? [1, idleRatio] : [1];
  const milliwatt = responseText(clamped, milliwattFormat(ratios), powersAsList);
  if (milliwatt.length <= limitBytes) return { text: milliwatt, precision: "milliwatt" };
  return {
    text: encodeErrorResponse(
      `the response for ${powers.rowCount} rows is ${milliwatt.length} bytes even at milliwatt precision; ` +
        `Kepler reads at most ${limitBytes} bytes: send fewer rows per request`,
      powers.rowCount,
      options,
    ),
    precision: "error",
  };
}
