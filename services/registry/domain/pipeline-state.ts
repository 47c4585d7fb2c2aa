// A stored pipeline as the catalogue holds it: its node-type index and metadata.json.
import type { DomainLogger } from "../../kit/observe/logger.js";
import { NodeTypeIndex } from "../../node-types/index.js";
import { NODE_TYPE_INDEX_FILE } from "../storage/model-layout.js";

/** A stored pipeline. */
export interface PipelineState {
  name: string;
  index: NodeTypeIndex;
  /** The pipeline's metadata.json text; undefined when it has none. */
  metadataText?: string;
}

/** A pipeline as listed. */
export interface PipelineSummary extends PipelineState {
  energySources: string[];
  modelCount: number;
}

/** A pipeline's node_type_index.json; an empty index when there is none or it cannot be read (logged). */
export function parseNodeTypeIndex(pipelineName: string, text: string | undefined, logger: DomainLogger): NodeTypeIndex {
  if (text === undefined) return new NodeTypeIndex();
  try {
    return NodeTypeIndex.fromJson(JSON.parse(text), `${pipelineName}/${NODE_TYPE_INDEX_FILE}`);
  } catch (error) {
    logger.warn({ pipeline: pipelineName, reason: (error as Error).message }, "ignoring an unreadable node_type_index.json");
    return new NodeTypeIndex();
  }
}
