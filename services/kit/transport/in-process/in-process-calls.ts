// Calls between services of one process (the mesh of `npm start`, the pipeline command) without the
// network: a peer client whose target is a plaintext server of this process hands each call straight to
// that server's grpc-js handler (the in-process transport gRPC has in Go and Java). Nothing else changes:
// requests and responses are still encoded by the generated client and decoded by the server's own
// tolerant, bounded decoders, every server middleware runs (auth, bounds, metrics, logging), message
// limits, metadata, deadlines, cancellation and flow control behave as over HTTP/2 (a message is taken
// only when the other side reads). What goes away is HTTP/2 framing, the socket and grpc-js's channel
// stack, most of the cost of a call between two services of one event loop. Server interceptors do not
// run; the server may have none but its admission gate (a shortcut). TLS servers and clients keep
// the wire; so does everything when grpc-js's internals this needs are not there. Each hop between the two
// ends waits for the event loop's next turn (setImmediate), as a socket read would: a client calling in a
// loop cannot starve timers and I/O.
import * as grpc from "@grpc/grpc-js";
import { DEFAULT_MAX_RECEIVE, type ServerInternals } from "./in-process-wire.js";
import { InProcessCall, type Serving } from "./in-process-call.js";
import { isAdmissionGate } from "../admission-gate.js";

const LOOPBACK = new Set(["localhost", "127.0.0.1", "::1", "0.0.0.0", "::", ""]);

// Servers on a loopback or wildcard host answer any loopback name; others only their own host.
function serverKey(host: string, port: number | string): string {
  const bare = host.replace(/^\[|\]$/g, "");
  return `${LOOPBACK.has(bare) ? "loopback" : bare}:${port}`;
}

function targetKey(target: string): string | undefined {
  const match = /^(?:dns:(?:\/\/[^/]*\/)?)?(\[[^\]]+\]|[^:/]*):(\d+)$/.exec(target);
  return match === null ? undefined : serverKey(match[1]!, match[2]!);
}

const serving = new Map<string, Serving>();

/** A server's in-process serving: stop taking calls, wait for those running, cancel them. */
export interface InProcessServing {
  /** New calls go over the network from now on (to a server that is closing). */
  stop(): void;
  /** Resolves when no in-process call is running. */
  drained(): Promise<void>;
  /** Ends the running in-process calls (UNAVAILABLE to their clients), as a forced shutdown does. */
  cancelAll(): void;
}

/**
 * Lets the plaintext grpc-js `server` bound at host:port take calls from this process's peer clients
 * directly; undefined when grpc-js's internals are not as expected (calls then go over the network).
 */
export function serveInProcess(host: string, port: number, server: grpc.Server): InProcessServing | undefined {
  const internals = server as unknown as ServerInternals;
  if (
    !(internals.handlers instanceof Map) ||
    typeof internals._runHandlerForCall !== "function" ||
    !(internals.interceptors ?? []).every(isAdmissionGate)
  )
    return undefined;
  const key = serverKey(host, port);
  const entry: Serving = { server: internals, calls: new Set() };
  serving.set(key, entry);
  return {
    stop: () => {
      if (serving.get(key) === entry) serving.delete(key);
    },
    drained: () => (entry.calls.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => (entry.drained = resolve))),
    cancelAll: () => {
      for (const call of [...entry.calls]) call.cancelWithStatus(grpc.status.UNAVAILABLE, "the server shut down");
    },
  };
}

/**
 * `channel` (plaintext, to `target`) with calls to a server of this process taken in-process; the
 * limits are the channel's message size options.
 */
export function withInProcessCalls(channel: grpc.Channel, options: grpc.ChannelOptions): grpc.Channel {
  const key = targetKey(channel.getTarget());
  if (key === undefined) return channel;
  const limits = {
    maxSend: (options["grpc.max_send_message_length"] as number | undefined) ?? -1,
    maxReceive: (options["grpc.max_receive_message_length"] as number | undefined) ?? DEFAULT_MAX_RECEIVE,
  };
  let callNumber = 0;
  const createCall: grpc.Channel["createCall"] = (method, deadline, host, parentCall, propagateFlags) => {
    const entry = serving.get(key);
    if (entry === undefined) return channel.createCall(method, deadline, host, parentCall, propagateFlags);
    return new InProcessCall(entry, method, deadline, channel.getTarget(), limits, ++callNumber);
  };
  return Object.assign(Object.create(channel) as grpc.Channel, { createCall });
}
