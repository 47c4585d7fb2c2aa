// Failures of the pipeline's peer calls, normalised into domain errors at this boundary (one place),
// each naming the peer so a person can tell which service refused or could not be reached.
import { ClientError, Status } from "nice-grpc";
import {
  FailedPreconditionError,
  InvalidInputError,
  NotFoundError,
  NotImplementedError,
  UnavailableError,
} from "../domain/errors.js";

/** The domain error for a peer's gRPC failure (anything else, e.g. an AbortError, is returned unchanged). */
export function fromPeerError(peer: string, error: unknown): unknown {
  if (!(error instanceof ClientError)) return error;
  switch (error.code) {
    case Status.INVALID_ARGUMENT:
      return new InvalidInputError(peer, error.details);
    case Status.NOT_FOUND:
      return new NotFoundError(`${peer}: ${error.details.replace(/ not found$/, "")}`);
    case Status.FAILED_PRECONDITION:
      return new FailedPreconditionError(`${peer}: ${error.details}`);
    case Status.UNIMPLEMENTED:
      return new NotImplementedError(`${peer}: ${error.details}`);
    default:
      return new UnavailableError(peer, `${Status[error.code]}: ${error.details}`, { cause: error });
  }
}

/** Runs a peer call, normalising its failure. */
export async function callPeer<T>(peer: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw fromPeerError(peer, error);
  }
}
