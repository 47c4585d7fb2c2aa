// Request id and logging: each call gets a process-wide number; a failure is logged once, here (warn for
// a refusal, error with the stack for a bug), and a completed call at debug level.
import { Status } from "nice-grpc";
import type { Logger } from "../observe/logger.js";
import type { CallInterceptor } from "./call-pipeline.js";
import type { InboundCall } from "./inbound-call.js";

let lastRequestId = 0;

/** A process-wide number for the next call, so its log lines can be told apart. */
function nextRequestId(): number {
  return ++lastRequestId;
}

/** The call's child logger (rpc, request id, trace id when traced), made when first needed. */
function callLogger(logger: Logger, call: InboundCall): Logger {
  return (call.logger ??= logger.child({
    rpc: call.method,
    requestId: call.requestId,
    ...(call.transport === "grpc" ? {} : { transport: call.transport }),
    ...(call.traceId === undefined ? {} : { traceId: call.traceId }),
  }));
}

export function loggingInterceptor(logger: Logger): CallInterceptor {
  return {
    enter(call) {
      call.requestId = nextRequestId();
    },
    exit(call) {
      const failure = call.failure;
      if (failure === undefined) {
        if (logger.isLevelEnabled("debug"))
          callLogger(logger, call).debug({ ms: Math.round(performance.now() - call.startedMs) }, "call completed");
        return;
      }
      if (failure.kind === "cancelled") return;
      // A flood's refusals are expected failures: below the log level they cost no child logger.
      if (failure.row.expected) {
        if (logger.isLevelEnabled("warn"))
          callLogger(logger, call).warn({ code: Status[failure.row.grpc], details: failure.message }, "request failed");
      } else callLogger(logger, call).error({ err: failure.error }, "unexpected error");
    },
  };
}
