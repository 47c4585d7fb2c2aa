import { TrainerServiceDefinition, type TrainerServiceImplementation } from "../generated/kepler/model/v1/trainer_service.js";
import { withUnimplemented } from "../kit/unimplemented.js";

/** The trainer RPCs. Not built yet: every RPC answers UNIMPLEMENTED saying so. */
export function createTrainerService(): TrainerServiceImplementation {
  return withUnimplemented<TrainerServiceImplementation>(TrainerServiceDefinition);
}
