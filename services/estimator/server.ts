import {
  EstimatorServiceDefinition,
  type EstimatorServiceImplementation,
} from "../generated/kepler/model/v1/estimator_service.js";
import { withUnimplemented } from "../kit/unimplemented.js";

/** The estimator RPCs. Not built yet: every RPC answers UNIMPLEMENTED saying so. */
export function createEstimatorService(): EstimatorServiceImplementation {
  return withUnimplemented<EstimatorServiceImplementation>(EstimatorServiceDefinition);
}
