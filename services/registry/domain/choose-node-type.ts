// Which node type a model request is for, across every pipeline it searches. Node types are numbered per
// pipeline (type 0 of one pipeline is not type 0 of another), so a machine spec is matched against each
// pipeline's index and the best match over all of them wins: an exact cover, then a partial cover (least
// uncertain), then the most similar spec. Kepler 0.7.12-0.9 always send node_type 0 beside their machine
// spec (kepler-collector.md §2.3), so 0 with a spec counts as "not declared"; a declared node type that some
// searched pipeline has still wins (docs/deviations.md).
import {
  isEmptySpec,
  NO_NODE_TYPE_MATCH,
  type NodeSpec,
  NodeTypeIndex,
  type NodeTypeMatchResult,
  specSimilarity,
} from "../../node-types/index.js";

/** How the request's node type was matched, in which pipeline. */
export interface NodeTypeMatchInfo extends NodeTypeMatchResult {
  pipelineName: string;
  nodeTypeSpec?: NodeSpec;
  /** Spec similarity (0-1) of the matched node type to the request's spec; -1 when no spec was compared. */
  similarity: number;
  /** One sentence: which node type, in which pipeline, and why. */
  reason: string;
}

/** The node type a selection prefers: models of `nodeType` in `pipelineNames` are "matched". */
export interface NodeTypeChoice {
  match: NodeTypeMatchInfo;
  /** Pipelines whose models of match.nodeType count as matched (all searched for a declared type, one for a spec). */
  pipelineNames: readonly string[];
}

/** One searched pipeline: its name and node-type index. */
export interface SearchedPipeline {
  name: string;
  index: NodeTypeIndex;
  /** Node types of the pipeline's models of the request's source and output type. */
  modelNodeTypes: ReadonlySet<number>;
}

// Exact beats cover beats similarity; within cover the least uncertain, within similarity the most similar.
function rank(result: NodeTypeMatchResult, similarity: number): [number, number] {
  if (result.kind === "exact") return [3, 1];
  if (result.kind === "cover") return [2, 1 - result.uncertainty];
  return [1, similarity];
}

function describe(match: NodeTypeMatchInfo, searched: number): string {
  const where = `of pipeline "${match.pipelineName}"`;
  const across = searched > 1 ? ` (the best of ${searched} pipelines' indexes)` : "";
  switch (match.kind) {
    case "requested":
      return `node type ${match.nodeType} as requested`;
    case "exact":
      return `node type ${match.nodeType} ${where} covers the machine spec exactly${across}`;
    case "cover":
      return `node type ${match.nodeType} ${where} covers the partial machine spec (uncertainty ${match.uncertainty.toFixed(3)})${across}`;
    case "similarity":
      return `node type ${match.nodeType} ${where} is the most similar to the machine spec (similarity ${match.similarity.toFixed(3)})${across}`;
    default:
      return match.reason;
  }
}

function noMatch(pipelineName: string, reason: string): NodeTypeMatchInfo {
  return { ...NO_NODE_TYPE_MATCH, pipelineName, similarity: -1, reason };
}

/**
 * Chooses the node type of a request: a declared node type (not -1; not 0 when a spec comes with it) that a
 * searched pipeline has; else the spec's best match over the pipelines' indexes; else any node type.
 */
export function chooseNodeType(
  pipelines: readonly SearchedPipeline[],
  nodeType: number | undefined,
  spec: NodeSpec | undefined,
): NodeTypeChoice {
  const hasSpec = spec !== undefined && !isEmptySpec(spec);
  const declared = nodeType !== undefined && nodeType !== -1 && !(nodeType === 0 && hasSpec) ? nodeType : undefined;
  const first = pipelines[0]?.name ?? "";
  const names = pipelines.map((p) => p.name);
  if (declared !== undefined) {
    const having = pipelines.filter((p) => p.index.get(declared) !== undefined || p.modelNodeTypes.has(declared));
    if (having.length > 0 || !hasSpec) {
      const home = having[0]?.name ?? first;
      const match: NodeTypeMatchInfo = {
        nodeType: declared,
        uncertainty: 0,
        looseness: 0,
        kind: "requested",
        pipelineName: home,
        similarity: -1,
        reason: `node type ${declared} as requested`,
      };
      const entry = pipelines.find((p) => p.name === home)?.index.get(declared);
      if (entry !== undefined) match.nodeTypeSpec = entry.spec;
      return { match, pipelineNames: names };
    }
  }
  if (!hasSpec) return { match: noMatch(first, "any node type (no machine spec)"), pipelineNames: names };
  let best: { match: NodeTypeMatchInfo; rank: [number, number] } | undefined;
  let compared = 0;
  for (const pipeline of pipelines) {
    // Only node types the pipeline has models for (of the request's source and output type) are candidates:
    // matching a node type without models would only fall back to an arbitrary one.
    const index = new NodeTypeIndex(pipeline.index.list().filter((entry) => pipeline.modelNodeTypes.has(entry.nodeType)));
    if (index.size === 0) continue;
    compared++;
    const result = index.match(spec, true);
    const entry = result.nodeType === -1 ? undefined : index.get(result.nodeType);
    if (entry === undefined) continue;
    const similarity = specSimilarity(entry.spec, spec);
    const candidateRank = rank(result, similarity);
    if (
      best === undefined ||
      candidateRank[0] > best.rank[0] ||
      (candidateRank[0] === best.rank[0] && candidateRank[1] > best.rank[1])
    ) {
      const match: NodeTypeMatchInfo = {
        ...result,
        pipelineName: pipeline.name,
        nodeTypeSpec: entry.spec,
        similarity,
        reason: "",
      };
      best = { match, rank: candidateRank };
    }
  }
  if (best === undefined) {
    const why = declared !== undefined ? `node type ${declared} is in no searched pipeline and ` : "";
    return {
      match: noMatch(
        first,
        `any node type (${why}no searched pipeline indexes the machine spec of a node type it has models for)`,
      ),
      pipelineNames: names,
    };
  }
  best.match.reason = describe(best.match, compared);
  if (declared !== undefined) best.match.reason = `node type ${declared} is in no searched pipeline; ${best.match.reason}`;
  return { match: best.match, pipelineNames: [best.match.pipelineName] };
}
