// The process-wide budget of upload bytes in flight: every request that must eventually hold a whole body
// in memory (an archive the registry publishes or imports, a recording the pipeline receives) reserves its
// size here first, so concurrent uploads cannot add up past the container's memory limit. A reservation
// that does not fit is refused with AdmissionRefused (RESOURCE_EXHAUSTED + RetryInfo, HTTP 429), the
// shape every other overload refusal has.
import { ServerError, Status } from "nice-grpc";
import { AdmissionRefused } from "./admission-refused.js";

/** How long a refused upload is told to wait: long enough for a big upload ahead of it to finish. */
export const UPLOAD_RETRY_AFTER_MS = 5000;

/** Bytes one upload holds in the budget; grows with the upload, released once when it ends. */
export interface UploadReservation {
  /**
   * Raises the reservation to `totalBytes` (never lowers it); AdmissionRefused (retry later) when the budget
   * lacks room now, a RESOURCE_EXHAUSTED ServerError without retry hint when it never could.
   */
  grow(totalBytes: number): void;
  /** Gives the bytes back (idempotent). */
  release(): void;
  readonly heldBytes: number;
}

/** A byte budget shared by every upload of the process. */
export class UploadBudget {
  #inFlightBytes = 0;

  constructor(
    readonly capacityBytes: number,
    readonly retryAfterMs = UPLOAD_RETRY_AFTER_MS,
  ) {}

  /** Bytes currently reserved by all uploads. */
  get inFlightBytes(): number {
    return this.#inFlightBytes;
  }

  /** A reservation of nothing yet, for the upload `what` (named in the refusal). */
  reserve(what: string): UploadReservation {
    let held = 0;
    let released = false;
    return {
      grow: (totalBytes) => {
        if (released || totalBytes <= held) return;
        // More than the whole budget never fits: no retry hint, a retry would be refused again.
        if (totalBytes > this.capacityBytes)
          throw new ServerError(
            Status.RESOURCE_EXHAUSTED,
            `${what} needs ${totalBytes} bytes, more than the whole upload budget of ${this.capacityBytes} (upload-budget-bytes)`,
          );
        const more = totalBytes - held;
        if (this.#inFlightBytes + more > this.capacityBytes) {
          throw new AdmissionRefused(
            `server busy: ${what} needs ${totalBytes} bytes of the upload budget, ` +
              `${this.capacityBytes - this.#inFlightBytes + held} of ${this.capacityBytes} are free (upload-budget-bytes); retry later`,
            this.retryAfterMs,
          );
        }
        this.#inFlightBytes += more;
        held = totalBytes;
      },
      release: () => {
        if (released) return;
        released = true;
        this.#inFlightBytes -= held;
        held = 0;
      },
      get heldBytes() {
        return held;
      },
    };
  }
}

// One budget per process: the services of an all-in-one process share it, as they share its memory.
let processBudget: UploadBudget | undefined;

/**
 * The process's upload budget, created on first use with `capacityBytes` (every service reads the same
 * upload-budget-bytes key, so they agree). A different capacity later (a test starting a second server
 * with its own setting) replaces it for new reservations; reservations already held stay with the old one.
 */
export function processUploadBudget(capacityBytes: number): UploadBudget {
  if (processBudget?.capacityBytes !== capacityBytes) processBudget = new UploadBudget(capacityBytes);
  return processBudget;
}
