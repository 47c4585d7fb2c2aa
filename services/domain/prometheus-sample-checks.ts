// Checks of a saved response's parts (labels, timestamps, sample values), worded as the parser's errors.
import { InvalidInputError } from "./errors.js";

/** Checks a series' `metric` object: string label values only. */
export function assertLabels(metric: unknown, path: string): Record<string, string> {
  if (metric === null || typeof metric !== "object" || Array.isArray(metric)) {
    throw new InvalidInputError(path, `expected an object of labels, got ${describe(metric)}`);
  }
  // Checked in place: the object comes from JSON.parse, a fresh plain object.
  const labels = metric as Record<string, unknown>;
  for (const label in labels) {
    const value = labels[label];
    if (typeof value !== "string")
      throw new InvalidInputError(`${path}.${label}`, `expected a string label value, got ${describe(value)}`);
  }
  return labels as Record<string, string>;
}

/** A sample timestamp: a finite number of seconds. */
export function assertTimestamp(raw: unknown, path: string): number {
  if (typeof raw !== "number" || !Number.isFinite(raw)) {
    throw new InvalidInputError(path, `expected a finite number of seconds, got ${describe(raw)}`);
  }
  return raw;
}

// Prometheus writes sample values as strings ("12.5", "NaN", "+Inf", "-Inf"); Python's float() reads
// the same. Numbers are accepted too (hand-made files).
export function parseSampleValue(raw: unknown, path: string): number {
  if (typeof raw === "number") return raw;
  if (typeof raw !== "string" || raw.trim() === "")
    throw new InvalidInputError(path, `expected a numeric string, got ${describe(raw)}`);
  const value = Number(raw);
  if (!Number.isNaN(value)) return value;
  switch (raw.trim().toLowerCase()) {
    case "nan":
      return Number.NaN;
    case "+inf":
    case "inf":
    case "+infinity":
    case "infinity":
      return Number.POSITIVE_INFINITY;
    case "-inf":
    case "-infinity":
      return Number.NEGATIVE_INFINITY;
    default:
      throw new InvalidInputError(path, `expected a numeric string, got ${describe(raw)}`);
  }
}

/** A short description of a JSON value for error messages. */
export function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (typeof value === "string") return `"${value.length > 40 ? `${value.slice(0, 40)}...` : value}"`;
  return typeof value === "object" ? "an object" : String(value);
}
