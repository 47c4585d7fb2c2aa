// The audit step of the call pipeline: every write call (rpc-access.ts; an HTTP route's access) is
// recorded in the audit log (security/audit-log.ts) when it ends, answered, failed or refused (a denied
// write is recorded too, with no target: its request was never read). Reads are not recorded.
import { Status } from "nice-grpc";
import type { OutputType } from "../../generated/kepler/model/v1/types.js";
import type { AuditLog, AuditTarget } from "../security/audit-log.js";
import type { Logger } from "../observe/logger.js";
import type { CallInterceptor } from "./call-pipeline.js";
import type { InboundCall } from "./inbound-call.js";
import { outputTypeFromProto } from "../transport/output-type-codec.js";

type Fields = Record<string, unknown> | undefined;

const asFields = (value: unknown): Fields =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

// ModelLocation -> `<source>/<OutputType>/<FeatureGroup>/<model>`, the kepler-model-db path in the pipeline.
function modelPath(location: Record<string, unknown>): string {
  const outputType = outputTypeFromProto(location.outputType as OutputType) ?? "";
  return [location.energySource, outputType, location.featureGroup, location.modelName].map(String).join("/");
}

/**
 * What a write's first request message names: the message itself, the value of its oneof (a stream's
 * header or options), and that value's `options`/`header`, looked into for `location`, `pipelineName`
 * and a Prometheus `window.baseUrl` (every write request of our contract keeps them there).
 */
function auditTargetOf(request: unknown): AuditTarget {
  const message = asFields(request);
  const content = asFields(message?.content);
  const body = content !== undefined && typeof content.$case === "string" ? asFields(content.value) : message;
  const target: AuditTarget = {};
  for (const part of [body, asFields(body?.options), asFields(body?.header)]) {
    if (part === undefined) continue;
    const location = asFields(part.location);
    target.pipeline ??= text(location?.pipelineName) ?? text(part.pipelineName);
    if (location !== undefined && target.model === undefined) target.model = modelPath(location);
    target.prometheus ??= text(asFields(part.window)?.baseUrl);
  }
  for (const key of Object.keys(target) as (keyof AuditTarget)[]) if (target[key] === undefined) delete target[key];
  return target;
}

/** `clientCertificates`: the server verifies client certificates (mTLS), so a call's certificate is recorded. */
export function auditInterceptor(audit: AuditLog, service: string, logger: Logger, clientCertificates = false): CallInterceptor {
  const targets = new WeakMap<InboundCall, AuditTarget>();
  let failedOnce = false;
  return {
    request(call, request) {
      if (call.access === "write" && !targets.has(call)) targets.set(call, auditTargetOf(request));
    },
    exit(call) {
      if (call.access !== "write") return;
      const failure = call.failure;
      const certificate = clientCertificates ? call.clientCertificate() : undefined;
      try {
        audit.record({
          time: new Date().toISOString(),
          service,
          method: call.method,
          transport: call.transport,
          ...(call.caller === undefined ? {} : { caller: call.caller }),
          ...(certificate === undefined ? {} : { clientCertificate: certificate }),
          peer: call.peer(),
          target: targets.get(call) ?? {},
          outcome: failure === undefined ? "OK" : Status[failure.row.grpc],
          ...(failure === undefined ? {} : { details: failure.message }),
          durationMs: Math.round(performance.now() - call.startedMs),
          requestId: call.requestId,
        });
      } catch (error) {
        // A full disk must not fail the write itself; say so once in the service log.
        if (!failedOnce) logger.error({ file: audit.path, reason: (error as Error).message }, "audit log not written");
        failedOnce = true;
      }
    },
  };
}
