// Metadata filters `key:value;key:value` (reference parse_filters and the intended is_valid_model of
// estimate/model/model.py; spec §7.2). The model server's own is_valid_model calls hasattr on a dict,
// so any filter rejected every model (Appendix A item 9): fixed here, see docs/deviations.md.
import { InvalidInputError } from "../../domain/errors.js";

/** One parsed condition. */
export type ModelFilterCondition =
  | { kind: "features"; features: string[] }
  | { kind: "minimum"; key: string; threshold: number }
  | { kind: "maximum"; key: string; threshold: number };

/** A parsed filter; empty matches every model. */
export interface ModelFilter {
  text: string;
  conditions: ModelFilterCondition[];
}

/**
 * Parses `mae:10;features:a,b;abs_max_corr:0.5`. `features` lists the allowed features; `abs_max_corr`
 * is a minimum; every other key is a maximum on the numeric metadata value. Unlike the reference, a
 * malformed item or a non-numeric threshold is refused instead of silently ignored.
 */
export function parseModelFilter(text: string, field = "filter"): ModelFilter {
  const conditions: ModelFilterCondition[] = [];
  for (const raw of text.split(";")) {
    const item = raw.trim();
    if (item === "") continue;
    const colon = item.indexOf(":");
    if (colon <= 0) throw new InvalidInputError(field, `"${item}" is not key:value`);
    const key = item.slice(0, colon).trim();
    const value = item.slice(colon + 1).trim();
    if (key === "features") {
      conditions.push({
        kind: "features",
        features: value
          .split(",")
          .map((f) => f.trim())
          .filter((f) => f !== ""),
      });
      continue;
    }
    const threshold = Number(value);
    if (value === "" || !Number.isFinite(threshold))
      throw new InvalidInputError(field, `"${key}" needs a number, got "${value}"`);
    conditions.push({ kind: key === "abs_max_corr" ? "minimum" : "maximum", key, threshold });
  }
  return { text, conditions };
}

/**
 * True when the metadata passes every condition. A numeric key the metadata lacks fails the condition
 * (the estimator's Model.is_valid_model lets it pass; a filter the model cannot show it meets should not).
 */
export function passesModelFilter(metadata: Readonly<Record<string, unknown>>, filter: ModelFilter): boolean {
  return filter.conditions.every((condition) => {
    if (condition.kind === "features") {
      const features = Array.isArray(metadata.features) ? (metadata.features as unknown[]).map(String) : [];
      const allowed = new Set(condition.features);
      return features.every((feature) => allowed.has(feature));
    }
    const value = metadata[condition.key];
    if (typeof value !== "number" || !Number.isFinite(value)) return false;
    return condition.kind === "minimum" ? value >= condition.threshold : value <= condition.threshold;
  });
}
