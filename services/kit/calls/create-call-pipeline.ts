// The standard chain, in its one order. Every front door builds its pipeline here: the gRPC server (and
// the HTTP routes on its port) in startGrpcServer, the estimator's unix socket in its main.
import type { RequestCheck } from "../checks/request-bounds.js";
import { requestChecksInterceptor } from "../checks/request-checks-interceptor.js";
import { metricsInterceptor } from "../observe/call-metrics.js";
import { type CallObservation, DEFAULT_CALL_OBSERVATION } from "../observe/call-observation.js";
import type { Logger } from "../observe/logger.js";
import { tracingInterceptor } from "../observe/tracing-interceptor.js";
import { authInterceptor } from "../security/auth-interceptor.js";
import type { AuthPolicy } from "../security/auth-policy.js";
import { type AdmissionPolicy, admissionInterceptor } from "./admission.js";
import { type CallInterceptor, CallPipeline } from "./call-pipeline.js";
import { deadlineInterceptor } from "./deadline-interceptor.js";
import { loggingInterceptor } from "./logging-interceptor.js";
import type { AuditLog } from "../security/audit-log.js";
import { auditInterceptor } from "./audit-interceptor.js";

export interface CallPipelineOptions {
  /** The service name, for logs and metric labels. */
  service: string;
  /** The service's logger (already bound to it). */
  logger: Logger;
  /** Where every write call is recorded (security/audit-log.ts); undefined: no audit log. */
  audit?: AuditLog;
  /** Whether the server verifies client certificates (mTLS): only then does the audit log name them. */
  clientCertificates?: boolean;
  /** Bearer-token policy; undefined: every call is open. */
  auth?: AuthPolicy;
  /** Field bounds per RPC path (compileRequestBounds). */
  checks?: ReadonlyMap<string, RequestCheck>;
  /** Admission control; undefined: every call is admitted. */
  admission?: AdmissionPolicy;
  /** For transports without a deadline of their own: the bound and the error past it. */
  deadline?: { ms: number; expired: (ms: number) => Error };
  /** Whether calls are measured and traced; undefined: DEFAULT_CALL_OBSERVATION (measured, not traced). */
  observation?: CallObservation;
}

/**
 * The call pipeline: request id and logging, audit (when on), metrics and tracing (as `observation` says),
 * auth, admission, deadline, request checks. Steps without their option are left out.
 */
export function createCallPipeline(options: CallPipelineOptions): CallPipeline {
  const steps: CallInterceptor[] = [loggingInterceptor(options.logger)];
  if (options.audit !== undefined)
    steps.push(auditInterceptor(options.audit, options.service, options.logger, options.clientCertificates ?? false));
  const observation = options.observation ?? DEFAULT_CALL_OBSERVATION;
  if (observation.measure) steps.push(metricsInterceptor(options.service));
  if (observation.trace) steps.push(tracingInterceptor(options.service));
  if (options.auth !== undefined) steps.push(authInterceptor(options.auth, options.logger));
  if (options.admission !== undefined) steps.push(admissionInterceptor(options.admission));
  if (options.deadline !== undefined) steps.push(deadlineInterceptor(options.deadline.ms, options.deadline.expired));
  if (options.checks !== undefined) steps.push(requestChecksInterceptor(options.checks));
  return new CallPipeline(options.service, options.logger, steps);
}
