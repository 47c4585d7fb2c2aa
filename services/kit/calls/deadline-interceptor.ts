// A deadline for transports without one of their own (the unix socket: Kepler sets none). gRPC calls
// carry their caller's deadline, which grpc-js enforces, so their pipeline has no deadline step.
import type { CallInterceptor } from "./call-pipeline.js";

/** Fails a handler still running after `ms` with the error `expired` makes (e.g. UnavailableError). */
export function deadlineInterceptor(ms: number, expired: (ms: number) => Error): CallInterceptor {
  return {
    enter(call) {
      call.deadlineMs = ms;
    },
    around(call, work) {
      const result = work();
      if (!(result instanceof Promise) || !(call.deadlineMs > 0)) return result;
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(expired(call.deadlineMs)), call.deadlineMs);
      });
      return Promise.race([result, deadline]).finally(() => clearTimeout(timer)) as typeof result;
    },
  };
}
