// The auth step of the call pipeline: with bearer tokens configured, a call whose token does not allow
// its access (rpc-access.ts for RPCs; the route's for HTTP) is refused before any other work.
// Denials and authorized writes are logged with the token's name, never the token.
import type { CallInterceptor } from "../calls/call-pipeline.js";
import type { Logger } from "../observe/logger.js";
import type { AccessDenied } from "./access-denied.js";
import { type AuthPolicy, authorize } from "./auth-policy.js";
import { IN_PROCESS_PEER } from "../transport/in-process/in-process-server-side.js";

export function authInterceptor(policy: AuthPolicy, logger: Logger): CallInterceptor {
  return {
    enter(call) {
      let caller: string | undefined;
      // A server without tokens beyond loopback still takes its own process's peer calls (default training).
      if (policy.writesRefused !== undefined && call.peer() === IN_PROCESS_PEER) return;
      try {
        caller = authorize(policy, call.access, call.method, call.header("authorization"))?.name;
        call.caller = caller;
      } catch (error) {
        // authorize throws only AccessDenied.
        const denied = error as AccessDenied;
        logger.warn({ rpc: call.method, caller: denied.caller, peer: call.peer() }, `denied: ${denied.reason}`);
        throw error;
      }
      if (call.access === "write") logger.info({ rpc: call.method, caller, peer: call.peer() }, "write authorized");
    },
  };
}
