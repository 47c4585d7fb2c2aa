// Node types: machine specs, their discovery, similarity, and a pipeline's node_type_index.json.
export { type DiscoveredMachineSpec, discoverMachineSpec, type MachineRoots } from "./discover-machine-spec.js";
export { formatProcessor, formatVendor } from "./format-processor.js";
export { type MachineSpec, machineSpecOfNode, nodeSpecOfMachine } from "./machine-spec.js";
export {
  attrHasValue,
  emptyNodeSpec,
  isCompleteSpec,
  isEmptySpec,
  NODE_ATTRIBUTES,
  type NodeAttribute,
  type NodeAttributeValue,
  type NodeSpec,
  nodeSpecFrom,
  specCovers,
  unknownAttributeCount,
} from "./node-spec.js";
export {
  NO_NODE_TYPE_MATCH,
  NodeTypeIndex,
  type NodeTypeEntry,
  type NodeTypeMatchKind,
  type NodeTypeMatchResult,
} from "./node-type-index.js";
export { jaccardSimilarity, numericSimilarity, SIMILARITY_WEIGHTS, specSimilarity } from "./similarity.js";
