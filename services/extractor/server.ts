import { ExtractorServiceDefinition, type ExtractorServiceImplementation } from "../generated/kepler/model/v1/extractor_service.js";
import { withUnimplemented } from "../kit/unimplemented.js";

/** The extractor RPCs. Not built yet: every RPC answers UNIMPLEMENTED saying so. */
export function createExtractorService(): ExtractorServiceImplementation {
  return withUnimplemented<ExtractorServiceImplementation>(ExtractorServiceDefinition);
}
