import { RegistryServiceDefinition, type RegistryServiceImplementation } from "../generated/kepler/model/v1/registry_service.js";
import { withUnimplemented } from "../kit/unimplemented.js";

/** The registry RPCs. Not built yet: every RPC answers UNIMPLEMENTED saying so. */
export function createRegistryService(): RegistryServiceImplementation {
  return withUnimplemented<RegistryServiceImplementation>(RegistryServiceDefinition);
}
