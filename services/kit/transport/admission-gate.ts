// Refuses a gRPC call as soon as its headers arrive when admission would refuse it now (its pool full).
// Left to its handler, a refused call first has its message read and decoded by grpc-js and a call
// context built by nice-grpc. The refusal still comes from the call pipeline (logging, metrics, auth,
// then admission), so its status, retry hint, metrics and logs are those of any refused call.
import * as grpc from "@grpc/grpc-js";
import { AbortError } from "abort-controller-x";
import type { AdmissionPolicy } from "../calls/admission.js";
import type { CallPipeline } from "../calls/call-pipeline.js";
import { rpcAccess } from "../security/rpc-access.js";
import { failedStatus } from "./direct-methods.js";
import { GrpcJsInboundCall } from "./grpc-inbound-call.js";

// Gates made here: they only answer sooner what the pipeline would answer, so calls that reach the
// handlers another way (in-process peer calls) may go without them.
const gates = new WeakSet<grpc.ServerInterceptor>();

/** Whether `interceptor` is an admission gate (calls may skip it: the pipeline decides the same). */
export function isAdmissionGate(interceptor: unknown): boolean {
  return gates.has(interceptor as grpc.ServerInterceptor);
}

/** A grpc-js server interceptor answering, before their handler starts, the calls admission would refuse. */
export function admissionGate(pipeline: CallPipeline, admission: AdmissionPolicy): grpc.ServerInterceptor {
  const gate: grpc.ServerInterceptor = (method, call) => {
    const streaming = method.requestStream || method.responseStream;
    // Most calls find their pool open and go on as grpc-js made them, at the cost of this one check. (grpc-js
    // chains interceptors by what each returns; the call it was handed is a valid one to return.)
    const subject = { transport: "grpc", label: method.path, streaming, peer: () => call.getPeer() } as const;
    if (!admission.wouldRefuse(subject)) return call as grpc.ServerInterceptingCall;
    // The headers are delivered in this same turn, when the handler starts the call: the pools are as checked.
    return new grpc.ServerInterceptingCall(call, {
      start(next) {
        next({
          onReceiveMetadata(metadata, pass) {
            const inbound = new GrpcJsInboundCall(method.path, rpcAccess(method.path), {
              metadata,
              getPeer: () => call.getPeer(),
            });
            inbound.streaming = streaming;
            let waiting: void | Promise<void>;
            try {
              waiting = pipeline.start(inbound);
            } catch (error) {
              call.sendStatus(failedStatus(pipeline, inbound, error));
              return;
            }
            // Admitted after all (no step before admission changes its pools, so not expected): this run
            // ends here and the handler's own run of the pipeline decides again.
            const end = () => void pipeline.fail(inbound, new AbortError());
            if (waiting === undefined) end();
            else waiting.then(end, () => undefined);
            pass(metadata);
          },
        });
      },
    });
  };
  gates.add(gate);
  return gate;
}
