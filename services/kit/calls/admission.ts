// Admission: whether a call may start now. The pipeline asks before any work; a refusal is answered
// RESOURCE_EXHAUSTED / HTTP 429 / the socket's error reply (error-table.ts), with a retry hint.
// Three pools, so heavy work never takes the slots of the calls that must keep answering:
// - priority: Estimate, EstimateStream, health and Kepler's socket (a counter; nothing allocated);
//   streams hold at most --max-priority-streams of its slots (by default half);
// - streams: every other streaming call (uploads, recordings, WatchModels), refused past the limit;
// - calls: every other unary call and HTTP request; past the limit they wait in a bounded queue.
// Per client address: streams, and calls of the heavy pool (a priority unary call is over in a turn).
// A unary call's pool slot is held to the end of the event-loop turn it ends in: calls answered within
// one turn (a burst read in one poll) ran "at once" for everything waiting on that turn, so a burst
// past the limit is queued or refused instead of running back to back ahead of other I/O. Its client
// count is given back at once (it only guards against one client holding many slots).
import type { OverloadConfig } from "../config/overload-config.js";
import { AdmissionRefused } from "./admission-refused.js";
import type { CallInterceptor } from "./call-pipeline.js";
import type { InboundCall } from "./inbound-call.js";

export { AdmissionRefused } from "./admission-refused.js";

/** Decides admission: `admit` takes a slot (or returns the promise of one) or throws AdmissionRefused. */
export interface AdmissionPolicy {
  admit(call: InboundCall): void | Promise<void>;
  /** Gives back what `admit` took (called once per admitted call). */
  release(call: InboundCall): void;
  /**
   * Whether `admit` would refuse the call now, taking nothing: a transport may then refuse it before
   * reading it (transport/admission-gate.ts), through the pipeline as any refusal.
   */
  wouldRefuse(call: AdmissionSubject): boolean;
}

/** What admission decides by: the door, the method's label, whether it streams, and the client's address. */
export type AdmissionSubject = Pick<InboundCall, "transport" | "label" | "streaming" | "peer">;

/** The methods admitted ahead of heavy work, by their metric label; the estimator socket is always one. */
const PRIORITY_METHODS: ReadonlySet<string> = new Set([
  "/grpc.health.v1.Health/Check",
  "/grpc.health.v1.Health/Watch",
  "/kepler.model.v1.EstimatorService/Estimate",
  "/kepler.model.v1.EstimatorService/EstimateStream",
]);

/** The pool a call holds (InboundCall.admissionPool). */
const Pool = { None: 0, Priority: 1, Stream: 2, Call: 3 } as const;

export type AdmissionLimits = Pick<
  OverloadConfig,
  | "maxCalls"
  | "maxCallsPerClient"
  | "maxQueuedCalls"
  | "queueWaitMs"
  | "maxStreams"
  | "maxStreamsPerClient"
  | "maxPriorityCalls"
  | "maxPriorityStreams"
>;

interface Waiter {
  call: InboundCall;
  resolve: () => void;
  timer: NodeJS.Timeout;
  refuse: (error: AdmissionRefused) => void;
}

// "ipv4:10.0.0.7:51234" / "10.0.0.7:51234" / "[::1]:5000" -> the address without its port.
function clientAddress(call: AdmissionSubject): string {
  const peer = call.peer();
  const colon = peer.lastIndexOf(":");
  const address = colon > 0 && /^\d+$/.test(peer.slice(colon + 1)) ? peer.slice(0, colon) : peer;
  return address.startsWith("ipv4:") || address.startsWith("ipv6:") ? address.slice(5) : address;
}

/** The admission policy for one service (see the file comment). */
export function createAdmissionPolicy(limits: AdmissionLimits): AdmissionPolicy & { readonly load: AdmissionLoad } {
  const load: AdmissionLoad = { priority: 0, streams: 0, calls: 0, queued: 0 };
  const perClientCalls = new Map<string, number>();
  const perClientStreams = new Map<string, number>();
  const queue: Waiter[] = [];

  const clientRefusal = (counts: Map<string, number>, limit: number, call: AdmissionSubject, what: string) => {
    if (limit <= 0) return undefined;
    const client = clientAddress(call);
    return (counts.get(client) ?? 0) >= limit
      ? new AdmissionRefused(`client ${client} already has ${limit} ${what} running; retry later`, 1000)
      : undefined;
  };
  const takeClient = (counts: Map<string, number>, limit: number, call: InboundCall) => {
    if (limit <= 0) return;
    const client = clientAddress(call);
    counts.set(client, (counts.get(client) ?? 0) + 1);
    call.admissionClient = client;
  };
  const giveClient = (counts: Map<string, number>, call: InboundCall) => {
    const client = call.admissionClient;
    if (client === undefined) return;
    call.admissionClient = undefined;
    const held = (counts.get(client) ?? 1) - 1;
    if (held === 0) counts.delete(client);
    else counts.set(client, held);
  };

  // Held streams (EstimateStream, health Watch) take at most part of the priority slots (by default half):
  // a stream flood leaves unary Estimate, health checks and Kepler's socket their own.
  const priorityStreamShare =
    limits.maxPriorityStreams > 0
      ? Math.min(limits.maxPriorityStreams, limits.maxPriorityCalls)
      : Math.max(1, Math.floor(limits.maxPriorityCalls / 2));
  let priorityStreams = 0;

  // Unary slots given back at the end of this turn (see the file comment).
  const turnHeld = { calls: 0, priority: 0, scheduled: false };
  const endOfTurn = () => {
    turnHeld.scheduled = false;
    load.calls -= turnHeld.calls;
    load.priority -= turnHeld.priority;
    turnHeld.calls = 0;
    turnHeld.priority = 0;
    startWaiters();
  };
  const holdToEndOfTurn = (pool: "calls" | "priority") => {
    turnHeld[pool]++;
    if (turnHeld.scheduled) return;
    turnHeld.scheduled = true;
    setImmediate(endOfTurn);
  };

  const startCall = (call: InboundCall) => {
    takeClient(perClientCalls, limits.maxCallsPerClient, call);
    load.calls++;
    call.admissionPool = Pool.Call;
  };

  // Freed slots go to the longest waiters; one refused by its client's limit is answered so.
  function startWaiters(): void {
    while (queue.length > 0 && load.calls < limits.maxCalls) {
      const next = queue.shift()!;
      load.queued = queue.length;
      clearTimeout(next.timer);
      const refused = clientRefusal(perClientCalls, limits.maxCallsPerClient, next.call, "calls");
      if (refused !== undefined) next.refuse(refused);
      else {
        startCall(next.call);
        next.resolve();
      }
    }
  }

  const isPriority = (call: AdmissionSubject) => call.transport === "socket" || PRIORITY_METHODS.has(call.label);

  // Why the call cannot start now, if it cannot (undefined: it starts, or waits in the queue).
  function refusalOf(call: AdmissionSubject): AdmissionRefused | undefined {
    if (isPriority(call)) {
      if (load.priority >= limits.maxPriorityCalls)
        return new AdmissionRefused(`server busy: ${limits.maxPriorityCalls} estimates running; retry later`, 100);
      if (!call.streaming) return undefined;
      if (priorityStreams >= priorityStreamShare)
        return new AdmissionRefused(`server busy: ${priorityStreamShare} estimate streams open; retry later`, 1000);
      return clientRefusal(perClientStreams, limits.maxStreamsPerClient, call, "streams");
    }
    if (call.streaming) {
      if (load.streams >= limits.maxStreams)
        return new AdmissionRefused(`server busy: ${limits.maxStreams} streams open; retry later`, 1000);
      return clientRefusal(perClientStreams, limits.maxStreamsPerClient, call, "streams");
    }
    if (load.calls < limits.maxCalls && queue.length === 0)
      return clientRefusal(perClientCalls, limits.maxCallsPerClient, call, "calls");
    if (queue.length >= limits.maxQueuedCalls)
      return new AdmissionRefused(
        `server busy: ${limits.maxCalls} calls running and ${limits.maxQueuedCalls} waiting; retry later`,
        1000,
      );
    return undefined;
  }

  return {
    load,
    wouldRefuse: (call) => refusalOf(call) !== undefined,
    admit(call) {
      const refused = refusalOf(call);
      if (refused !== undefined) throw refused;
      if (isPriority(call)) {
        if (call.streaming) {
          takeClient(perClientStreams, limits.maxStreamsPerClient, call);
          priorityStreams++;
        }
        load.priority++;
        call.admissionPool = Pool.Priority;
        return;
      }
      if (call.streaming) {
        takeClient(perClientStreams, limits.maxStreamsPerClient, call);
        load.streams++;
        call.admissionPool = Pool.Stream;
        return;
      }
      if (load.calls < limits.maxCalls && queue.length === 0) return startCall(call);
      return new Promise<void>((resolve, reject) => {
        const waiter: Waiter = {
          call,
          resolve,
          refuse: reject,
          timer: setTimeout(() => {
            queue.splice(queue.indexOf(waiter), 1);
            load.queued = queue.length;
            reject(
              new AdmissionRefused(`server busy: no call slot within ${limits.queueWaitMs} ms; retry later`, limits.queueWaitMs),
            );
          }, limits.queueWaitMs),
        };
        queue.push(waiter);
        load.queued = queue.length;
      });
    },
    release(call) {
      const pool = call.admissionPool;
      call.admissionPool = Pool.None;
      if (pool === Pool.Priority) {
        if (call.streaming) {
          load.priority--;
          priorityStreams--;
          giveClient(perClientStreams, call);
        } else holdToEndOfTurn("priority");
      } else if (pool === Pool.Stream) {
        load.streams--;
        giveClient(perClientStreams, call);
      } else if (pool === Pool.Call) {
        giveClient(perClientCalls, call);
        holdToEndOfTurn("calls");
      }
    },
  };
}

/** What a policy holds now (for tests and the bench). */
export interface AdmissionLoad {
  priority: number;
  streams: number;
  calls: number;
  queued: number;
}

/** The admission step of the pipeline. */
export function admissionInterceptor(policy: AdmissionPolicy): CallInterceptor {
  return {
    enter(call) {
      const pending = policy.admit(call);
      if (pending === undefined) {
        call.admitted = true;
        return;
      }
      return pending.then(() => {
        call.admitted = true;
      });
    },
    exit(call) {
      if (!call.admitted) return;
      call.admitted = false;
      policy.release(call);
    },
  };
}
