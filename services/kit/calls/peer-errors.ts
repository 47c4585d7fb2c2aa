// The way back in: a peer's gRPC failure becomes the domain error of the same meaning, naming the peer,
// from its status code and the structured details the peer's kit sent (status-details.ts), never from
// its message text. The one table for every service's peer calls.
import { ClientError, Status } from "nice-grpc";
import { BadRequest, PreconditionFailure, ResourceInfo, RichClientError } from "nice-grpc-error-details";
import {
  FailedPreconditionError,
  InvalidInputError,
  NotFoundError,
  NotImplementedError,
  UnavailableError,
} from "../../domain/errors.js";

/** How a caller relates to its peer's failures. */
export interface PeerErrorOptions {
  /**
   * The caller forwards its own caller's query to the peer (the estimator asking the registry for a
   * model): an invalid field keeps the peer's name for it, and nothing found means the caller's system
   * is not ready (failed precondition), not that the caller's request named something missing.
   */
  forwardsQuery?: boolean;
}

type Detail = RichClientError["extra"][number];

function detailOf<T extends Detail>(error: ClientError, type: { $type: string }): T | undefined {
  if (!(error instanceof RichClientError)) return undefined;
  return error.extra.find((detail) => "$type" in detail && detail.$type === type.$type) as T | undefined;
}

/** The domain error for a peer's gRPC failure (anything else, e.g. an AbortError, is returned unchanged). */
export function fromPeerError(peer: string, error: unknown, options: PeerErrorOptions = {}): unknown {
  if (!(error instanceof ClientError)) return error;
  const forwards = options.forwardsQuery === true;
  switch (error.code) {
    case Status.INVALID_ARGUMENT: {
      if (!forwards) return new InvalidInputError(peer, error.details);
      const violation = detailOf<BadRequest>(error, BadRequest)?.fieldViolations[0];
      return violation === undefined
        ? new InvalidInputError("request", error.details)
        : new InvalidInputError(violation.field, violation.description);
    }
    case Status.NOT_FOUND: {
      if (forwards) return new FailedPreconditionError(error.details);
      const missing = detailOf<ResourceInfo>(error, ResourceInfo)?.resourceName;
      return new NotFoundError(`${peer}: ${missing ?? error.details}`);
    }
    case Status.FAILED_PRECONDITION: {
      const subject = detailOf<PreconditionFailure>(error, PreconditionFailure)?.violations[0]?.subject;
      return new FailedPreconditionError(forwards ? error.details : `${peer}: ${error.details}`, { subject });
    }
    case Status.UNIMPLEMENTED:
      if (!forwards) return new NotImplementedError(`${peer}: ${error.details}`);
  }
  return new UnavailableError(peer, `${Status[error.code]}: ${error.details}`, { cause: error });
}

/** Runs a peer call; its failure is normalised (fromPeerError). */
export async function callPeer<T>(peer: string, call: () => Promise<T>, options?: PeerErrorOptions): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw fromPeerError(peer, error, options);
  }
}

/** Whether a peer call failed because the peer does not have what was asked for. */
export function isPeerNotFound(error: unknown): boolean {
  return error instanceof ClientError && error.code === Status.NOT_FOUND;
}

/** What a peer's failed precondition names (its PreconditionFailure subject), if it is one. */
export function peerPreconditionSubject(error: unknown): string | undefined {
  if (!(error instanceof ClientError) || error.code !== Status.FAILED_PRECONDITION) return undefined;
  return detailOf<PreconditionFailure>(error, PreconditionFailure)?.violations[0]?.subject;
}
