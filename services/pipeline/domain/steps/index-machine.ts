// Step "index machine": the node type a run's rows get (reference `kepler-model train --id`: the machine
// spec is indexed in the pipeline's node_type_index.json and its node type replaces the data's node_type
// column, §6.5, §9.4).
import type { PipelineRunOptions } from "../pipeline-options.js";
import type { MachineSpec } from "../../../node-types/index.js";
import type { PipelinePeers } from "../pipeline-peers.js";

/** How the node type was chosen. */
export interface NodeTypeAssignment {
  /** -1 when the data's own node_type column is kept. */
  readonly nodeType: number;
  /**
   * `indexed`: the machine spec was indexed (a complete spec, so its node type covers it exactly);
   * `requested`: the request named it; `data`: the data's column is kept.
   */
  readonly kind: "indexed" | "requested" | "data";
  readonly spec?: MachineSpec;
  /** True when indexing created a new node type. */
  readonly created?: boolean;
}

/** Indexes the run's machine (when given) and returns the node type for every row. */
export async function assignNodeType(options: PipelineRunOptions, peers: PipelinePeers): Promise<NodeTypeAssignment> {
  if (options.machine !== undefined) {
    const indexed = await peers.indexMachine(options.pipelineName, options.machine.machineId, options.machine.spec);
    return { nodeType: indexed.nodeType, kind: "indexed", spec: options.machine.spec, created: indexed.created };
  }
  if (options.nodeType !== undefined && options.nodeType >= 0) return { nodeType: options.nodeType, kind: "requested" };
  return { nodeType: -1, kind: "data" };
}
