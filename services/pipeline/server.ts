import { PipelineServiceDefinition, type PipelineServiceImplementation } from "../generated/kepler/model/v1/pipeline_service.js";
import { withUnimplemented } from "../kit/unimplemented.js";

/** The pipeline RPCs. Not built yet: every RPC answers UNIMPLEMENTED saying so. */
export function createPipelineService(): PipelineServiceImplementation {
  return withUnimplemented<PipelineServiceImplementation>(PipelineServiceDefinition);
}
