// Failures of a peer call, normalised into our domain errors at the boundary (one place per service).
import { ClientError, Status } from "nice-grpc";
import {
  FailedPreconditionError,
  InvalidInputError,
  NotFoundError,
  NotImplementedError,
  UnavailableError,
} from "../domain/errors.js";

/** Runs a peer call; a gRPC failure becomes the domain error of the same meaning, naming the peer. */
export async function callPeer<T>(peer: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw fromPeerError(peer, error);
  }
}

/** The domain error for a peer's gRPC failure (anything else is returned unchanged). */
export function fromPeerError(peer: string, error: unknown): unknown {
  if (!(error instanceof ClientError)) return error;
  const message = `${peer}: ${error.details}`;
  switch (error.code) {
    case Status.INVALID_ARGUMENT:
      return new InvalidInputError(peer, error.details);
    case Status.NOT_FOUND:
      return new NotFoundError(message);
    case Status.FAILED_PRECONDITION:
      return new FailedPreconditionError(message);
    case Status.UNIMPLEMENTED:
      return new NotImplementedError(message);
    default:
      return new UnavailableError(peer, `${Status[error.code]}: ${error.details}`, { cause: error });
  }
}
