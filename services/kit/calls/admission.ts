// Admission: whether a call may start now. The pipeline asks before any work; a refusal is answered
// RESOURCE_EXHAUSTED / HTTP 429 (error-table.ts). Without a policy every call is admitted.
import type { CallInterceptor } from "./call-pipeline.js";
import type { InboundCall } from "./inbound-call.js";

/** The call was not admitted (the server is at its limit). */
export class AdmissionRefused extends Error {
  override readonly name = "AdmissionRefused";
}

/** Decides admission: `admit` takes a slot or throws AdmissionRefused; `release` gives it back. */
export interface AdmissionPolicy {
  admit(call: InboundCall): void;
  release(call: InboundCall): void;
}

/** At most `maxCalls` calls at once; the next is refused. */
export function concurrencyLimit(maxCalls: number): AdmissionPolicy {
  let running = 0;
  return {
    admit() {
      if (running >= maxCalls) throw new AdmissionRefused(`server busy: ${maxCalls} calls running; retry later`);
      running++;
    },
    release() {
      running--;
    },
  };
}

/** The admission step of the pipeline. */
export function admissionInterceptor(policy: AdmissionPolicy): CallInterceptor {
  return {
    enter(call) {
      policy.admit(call);
      call.admitted = true;
    },
    exit(call) {
      if (!call.admitted) return;
      call.admitted = false;
      policy.release(call);
    },
  };
}
