// The one chain every inbound call runs through (inbound-call.ts), in this order: request id and
// logging, metrics, tracing, auth, admission, deadline, request checks. A transport describes its call,
// then: start (every enter step; a refusal throws), check each decoded request, run the handler (inside
// the steps that wrap it: tracing's span, the deadline), and end with succeed or fail. fail maps the
// error once through the error table; the transport renders the failure its own way.
import type { Logger } from "../observe/logger.js";
import { type CallFailure, describeFailure } from "./error-table.js";
import type { InboundCall } from "./inbound-call.js";

/** One step of the chain. Every hook is optional; exit runs for every call, also refused ones. */
export interface CallInterceptor {
  /** Before the request is read: may throw to refuse the call, or return a promise to make it wait (a queue). */
  enter?(call: InboundCall): void | Promise<void>;
  /** Each decoded request (or stream item), before the handler: may throw to refuse it. */
  request?(call: InboundCall, request: unknown): void;
  /** Runs the handler's work (`work` is the rest of the chain). */
  around?<T>(call: InboundCall, work: () => T): T;
  /** Once, when the call ends (call.failure says how). */
  exit?(call: InboundCall): void;
}

type Around = NonNullable<CallInterceptor["around"]>;

export class CallPipeline {
  private readonly enters: Array<NonNullable<CallInterceptor["enter"]>>;
  private readonly requests: Array<NonNullable<CallInterceptor["request"]>>;
  private readonly arounds: Around[];
  private readonly exits: Array<NonNullable<CallInterceptor["exit"]>>;

  constructor(
    /** The service name, for logs and metric labels. */
    readonly service: string,
    readonly logger: Logger,
    interceptors: readonly CallInterceptor[],
  ) {
    this.enters = interceptors.flatMap((step) => (step.enter ? [step.enter.bind(step)] : []));
    this.requests = interceptors.flatMap((step) => (step.request ? [step.request.bind(step)] : []));
    this.arounds = interceptors.flatMap((step) => (step.around ? [step.around.bind(step) as Around] : []));
    this.exits = interceptors.flatMap((step) => (step.exit ? [step.exit.bind(step)] : [])).reverse();
  }

  /**
   * Runs every enter step; throws the refusal of the first that refuses (then end with fail). Returns a
   * promise only when a step makes the call wait (admission's queue); the rest run once it resolves.
   */
  start(call: InboundCall): void | Promise<void> {
    const enters = this.enters;
    for (let i = 0; i < enters.length; i++) {
      const waiting = enters[i]!(call);
      if (waiting !== undefined) return this.resume(call, i + 1, waiting);
    }
  }

  private async resume(call: InboundCall, from: number, waiting: Promise<void>): Promise<void> {
    await waiting;
    for (let i = from; i < this.enters.length; i++) await this.enters[i]!(call);
  }

  /** Checks one decoded request or stream item; throws when it is refused. */
  check(call: InboundCall, request: unknown): void {
    const requests = this.requests;
    for (let i = 0; i < requests.length; i++) requests[i]!(call, request);
  }

  /** Calls `handler` on `self` with `request` inside the wrapping steps (tracing, deadline). */
  run<S, A, R>(call: InboundCall, handler: (this: S, request: A) => R, self: S, request: A): R {
    if (this.arounds.length === 0) return handler.call(self, request);
    return this.wrap(call, 0, () => handler.call(self, request));
  }

  private wrap<R>(call: InboundCall, index: number, work: () => R): R {
    if (index === this.arounds.length) return work();
    return this.arounds[index]!(call, () => this.wrap(call, index + 1, work));
  }

  /** Ends an answered call. */
  succeed(call: InboundCall): void {
    const exits = this.exits;
    for (let i = 0; i < exits.length; i++) exits[i]!(call);
  }

  /** Ends a failed call: the error mapped through the table, logged once (logging step), every exit run. */
  fail(call: InboundCall, error: unknown): CallFailure {
    const failure = describeFailure(error);
    call.failure = failure;
    const exits = this.exits;
    for (let i = 0; i < exits.length; i++) exits[i]!(call);
    return failure;
  }
}
