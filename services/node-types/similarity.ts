// The reference's spec similarity (src/util/similarity.py, spec §6.5): weighted per attribute,
// character-set Jaccard for the processor name, relative difference for numbers.
import { NODE_ATTRIBUTES, type NodeAttribute, type NodeAttributeValue, type NodeSpec } from "./node-spec.js";

/** Attribute weights (processor 5, cores 1, chips 1, memory 0.5, frequency 0.5), before normalisation. */
export const SIMILARITY_WEIGHTS: Record<NodeAttribute, number> = {
  processor: 5,
  cores: 1,
  chips: 1,
  memory: 0.5,
  frequency: 0.5,
};

const TOTAL_WEIGHT = Object.values(SIMILARITY_WEIGHTS).reduce((sum, weight) => sum + weight, 0);

/**
 * The reference's compute_jaccard_similarity: 1 when equal ignoring case (both empty included), 0 when
 * one is empty, else half the Jaccard index of the two lower-cased CHARACTER sets ("abcd" vs "abcdefgh" = 0.25).
 */
export function jaccardSimilarity(a: string, b: string): number {
  const left = a.toLowerCase();
  const right = b.toLowerCase();
  if (left === right) return 1;
  if (left.length === 0 || right.length === 0) return 0;
  const setA = new Set(left);
  const setB = new Set(right);
  const intersection = [...setA].filter((c) => setB.has(c)).length;
  const union = new Set([...setA, ...setB]).size;
  return (intersection / union) * 0.5;
}

/** The reference's compute_similarity: 1 - |b - a| / mean(a, b), or 0 once that ratio reaches 1. */
export function numericSimilarity(base: number, compared: number): number {
  const ratio = base > 0 || compared > 0 ? Math.abs(compared - base) / ((base + compared) / 2) : 0;
  return ratio >= 1 ? 0 : 1 - ratio;
}

function asNumber(value: NodeAttributeValue): number {
  const parsed = typeof value === "number" ? value : Number(value);
  return Number.isFinite(parsed) ? parsed : 0;
}

/**
 * Similarity of `compared` to a node type's `spec`, in [0, 1]. Unknown attributes of `compared`
 * contribute 0; an unknown attribute of the node type compares as 0 (the reference would raise).
 */
export function specSimilarity(spec: NodeSpec, compared: NodeSpec): number {
  let total = 0;
  for (const attribute of NODE_ATTRIBUTES) {
    const theirs = compared[attribute];
    if (theirs === null) continue;
    const mine = spec[attribute];
    const similarity =
      attribute === "processor"
        ? jaccardSimilarity(mine === null ? "" : String(mine), String(theirs))
        : numericSimilarity(asNumber(mine), asNumber(theirs));
    total += similarity * (SIMILARITY_WEIGHTS[attribute] / TOTAL_WEIGHT);
  }
  return Math.min(total, 1);
}
