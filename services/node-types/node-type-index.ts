// A pipeline's node_type_index.json and the reference's get_node_type / index_train_machine
// (src/train/profiler/node_type_index.py, spec §6.5), returning uncertainty and looseness instead of
// only logging them.
import { InvalidInputError } from "../domain/errors.js";
import {
  isCompleteSpec,
  NODE_ATTRIBUTES,
  type NodeAttribute,
  type NodeSpec,
  nodeSpecFrom,
  specCovers,
  unknownAttributeCount,
} from "./node-spec.js";
import { specSimilarity } from "./similarity.js";

/** One node type: its attributes and the machines indexed under it. */
export interface NodeTypeEntry {
  nodeType: number;
  spec: NodeSpec;
  members: string[];
}

/** How a spec was matched (see NodeTypeMatchKind in model.proto). */
export type NodeTypeMatchKind = "requested" | "exact" | "cover" | "similarity" | "none";

/** The result of get_node_type: the node type (-1 for none), uncertainty and looseness. */
export interface NodeTypeMatchResult {
  nodeType: number;
  uncertainty: number;
  looseness: number;
  kind: NodeTypeMatchKind;
}

/** No node type matched. */
export const NO_NODE_TYPE_MATCH: NodeTypeMatchResult = { nodeType: -1, uncertainty: -1, looseness: -1, kind: "none" };

type Candidates = Map<NodeAttribute, Array<{ nodeType: number; size: number }>>;

// get_candidate_score: per unknown attribute, each covering node type scores its share of members.
function candidateScores(candidates: Candidates): Map<number, number> {
  const scores = new Map<number, number>();
  for (const list of candidates.values()) {
    const total = list.reduce((sum, c) => sum + c.size, 0);
    if (total === 0) continue;
    for (const c of list) scores.set(c.nodeType, (scores.get(c.nodeType) ?? 0) + c.size / total);
  }
  return scores;
}

// find_best_candidate: the first node type with a strictly higher score than every earlier one.
function bestCandidate(scores: Map<number, number>): { nodeType: number; score: number } {
  let best = { nodeType: -1, score: 0 };
  for (const [nodeType, score] of scores) if (score > best.score) best = { nodeType, score };
  return best;
}

function uncertaintyOf(score: number, unknownCount: number): number {
  return unknownCount === 0 ? 0 : 1 - score / unknownCount;
}

function addCandidate(candidates: Candidates, spec: NodeSpec, entry: NodeTypeEntry): void {
  for (const attribute of NODE_ATTRIBUTES) {
    if (spec[attribute] !== null) continue;
    const list = candidates.get(attribute) ?? [];
    list.push({ nodeType: entry.nodeType, size: entry.members.length });
    candidates.set(attribute, list);
  }
}

/** The node types of one pipeline, in index order. */
export class NodeTypeIndex {
  private readonly entries: Map<number, NodeTypeEntry>;

  constructor(entries: readonly NodeTypeEntry[] = []) {
    this.entries = new Map([...entries].sort((a, b) => a.nodeType - b.nodeType).map((e) => [e.nodeType, e]));
  }

  /** Parses node_type_index.json (`{"0": {"attrs": {...}, "members": [...]}, ...}`). */
  static fromJson(value: unknown, field = "node_type_index.json"): NodeTypeIndex {
    if (typeof value !== "object" || value === null || Array.isArray(value))
      throw new InvalidInputError(field, "expected an object");
    const entries: NodeTypeEntry[] = [];
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      const nodeType = Number(key);
      if (!Number.isInteger(nodeType)) throw new InvalidInputError(`${field}.${key}`, "node type keys must be integers");
      const record = (item ?? {}) as { attrs?: Record<string, unknown>; members?: unknown };
      if (typeof record.attrs !== "object" || record.attrs === null)
        throw new InvalidInputError(`${field}.${key}.attrs`, "expected an object");
      const members = Array.isArray(record.members) ? record.members.map(String) : [];
      entries.push({ nodeType, spec: nodeSpecFrom(record.attrs as Partial<Record<NodeAttribute, unknown>>), members });
    }
    return new NodeTypeIndex(entries);
  }

  /** node_type_index.json content, keys in the reference's spelling. */
  toJson(): Record<string, { attrs: NodeSpec; members: string[] }> {
    const json: Record<string, { attrs: NodeSpec; members: string[] }> = {};
    for (const entry of this.entries.values())
      json[String(entry.nodeType)] = { attrs: { ...entry.spec }, members: [...entry.members] };
    return json;
  }

  /** Every node type, in index order. */
  list(): NodeTypeEntry[] {
    return [...this.entries.values()];
  }

  get size(): number {
    return this.entries.size;
  }

  /** One node type, or undefined. */
  get(nodeType: number): NodeTypeEntry | undefined {
    return this.entries.get(nodeType);
  }

  /**
   * The reference's get_node_type. A covering node type of a complete spec is exact (uncertainty 0);
   * for an incomplete spec the covering type with the best member-weighted score wins and uncertainty
   * says how ambiguous that was; with `looseSearch` and nothing covering, the most similar type is taken
   * with looseness = 1 - similarity. Deviation: attributes already unknown are counted once when the
   * loose search widens the spec (the reference counts them twice; docs/deviations.md).
   */
  match(spec: NodeSpec, looseSearch = false): NodeTypeMatchResult {
    if (this.entries.size === 0) return NO_NODE_TYPE_MATCH;
    const unknown = unknownAttributeCount(spec);
    const complete = isCompleteSpec(spec);
    const candidates: Candidates = new Map();
    const similarities = new Map<number, number>();
    let mostSimilar = -1;
    let maxSimilarity = -1;
    let mostSimilarSize = -1;
    let hasCandidate = false;
    for (const entry of this.entries.values()) {
      const size = entry.members.length;
      if (looseSearch) {
        const similarity = specSimilarity(entry.spec, spec);
        similarities.set(entry.nodeType, similarity);
        if (similarity > maxSimilarity || (similarity === maxSimilarity && mostSimilarSize < size)) {
          mostSimilar = entry.nodeType;
          maxSimilarity = similarity;
          mostSimilarSize = size;
        }
      }
      if (specCovers(entry.spec, spec)) {
        if (complete) return { nodeType: entry.nodeType, uncertainty: 0, looseness: 0, kind: "exact" };
        addCandidate(candidates, spec, entry);
        hasCandidate = true;
      }
    }
    if (hasCandidate) {
      const best = bestCandidate(candidateScores(candidates));
      return { nodeType: best.nodeType, uncertainty: uncertaintyOf(best.score, unknown), looseness: 0, kind: "cover" };
    }
    if (!looseSearch || mostSimilar === -1) return NO_NODE_TYPE_MATCH;
    // Loosen every attribute that differs from the most similar type, then score the types covering that.
    const reference = this.entries.get(mostSimilar) as NodeTypeEntry;
    const loosened: NodeSpec = { ...spec };
    let loosenedUnknown = unknown;
    for (const attribute of NODE_ATTRIBUTES) {
      if (loosened[attribute] !== null && !sameValue(loosened[attribute], reference.spec[attribute])) {
        loosened[attribute] = null;
        loosenedUnknown++;
      }
    }
    const widened: Candidates = new Map();
    for (const entry of this.entries.values()) {
      if (!specCovers(entry.spec, loosened)) continue;
      const size = entry.members.length;
      const current = this.entries.get(mostSimilar) as NodeTypeEntry;
      if (similarities.get(entry.nodeType) === maxSimilarity && size > current.members.length) mostSimilar = entry.nodeType;
      addCandidate(widened, loosened, entry);
    }
    const score = candidateScores(widened).get(mostSimilar) ?? 0;
    return {
      nodeType: mostSimilar,
      uncertainty: uncertaintyOf(score, loosenedUnknown),
      looseness: 1 - maxSimilarity,
      kind: "similarity",
    };
  }

  /**
   * The reference's index_train_machine: the node type covering a complete spec, or a new one
   * (max + 1, 0 for the first); the machine is added to its members. Incomplete specs are rejected.
   */
  indexMachine(machineId: string, spec: NodeSpec): { nodeType: number; created: boolean } {
    if (!isCompleteSpec(spec)) {
      const missing = NODE_ATTRIBUTES.filter((attribute) => spec[attribute] === null);
      throw new InvalidInputError("spec", `a training machine needs a complete spec; missing ${missing.join(", ")}`);
    }
    const match = this.match(spec);
    let entry = match.nodeType === -1 ? undefined : this.entries.get(match.nodeType);
    const created = entry === undefined;
    if (entry === undefined) {
      const next = this.entries.size === 0 ? 0 : Math.max(...this.entries.keys()) + 1;
      entry = { nodeType: next, spec: { ...spec }, members: [] };
      this.entries.set(next, entry);
    }
    if (!entry.members.includes(machineId)) entry.members.push(machineId);
    return { nodeType: entry.nodeType, created };
  }

  /** Of the given node types, those with the most cores (the reference's get_largest_candidates); empty if none is indexed. */
  largestByCores(nodeTypes: readonly number[]): number[] {
    const cores = (nodeType: number): number => {
      const value = Number(this.entries.get(nodeType)?.spec.cores ?? 0);
      return Number.isFinite(value) && value > 0 ? Math.trunc(value) : 0;
    };
    const max = Math.max(0, ...nodeTypes.map(cores));
    return max > 0 ? nodeTypes.filter((nodeType) => cores(nodeType) === max) : [];
  }
}

// Python's `!=` between attribute values: numbers compare numerically, strings exactly.
function sameValue(a: unknown, b: unknown): boolean {
  return a === b;
}
