import { IsolatorServiceDefinition, type IsolatorServiceImplementation } from "../generated/kepler/model/v1/isolator_service.js";
import { withUnimplemented } from "../kit/unimplemented.js";

/** The isolator RPCs. Not built yet: every RPC answers UNIMPLEMENTED saying so. */
export function createIsolatorService(): IsolatorServiceImplementation {
  return withUnimplemented<IsolatorServiceImplementation>(IsolatorServiceDefinition);
}
