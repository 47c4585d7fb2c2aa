// What the two ends of an in-process call (in-process-call.ts, in-process-server-side.ts) exchange, and
// the grpc-js internals they drive.
import * as grpc from "@grpc/grpc-js";
import type { InterceptingListener, StatusObject } from "@grpc/grpc-js/build/src/call-interface.js";

/** A grpc-js method handler as the Server keeps it. */
export interface Handler {
  serialize(value: unknown): Buffer;
  deserialize(bytes: Buffer): unknown;
  type: string;
  path: string;
}

// grpc-js has no public API for these: the registered handlers, the server's options and the function
// that runs a handler on a call (the same one its HTTP/2 streams go through).
export interface ServerInternals {
  handlers: Map<string, Handler>;
  options: grpc.ServerOptions;
  interceptors?: unknown[];
  _runHandlerForCall(call: grpc.ServerInterceptingCallInterface, handler: Handler): boolean;
}

export type ServerListener = Parameters<grpc.ServerInterceptingCallInterface["start"]>[0];
export type ClientListener = InterceptingListener;

export type ToClient =
  | { kind: "metadata"; metadata: grpc.Metadata }
  | { kind: "message"; bytes: Buffer; written: () => void }
  | { kind: "status"; status: StatusObject };
export type ToServer = { kind: "message"; bytes: Buffer; taken?: () => void } | { kind: "halfClose" };

/** The client's end as the server's end sees it: where the server's metadata, messages and status go. */
export interface ClientEnd {
  deliver(item: ToClient): void;
  serverEnded(status: StatusObject): void;
}

/** grpc-js's default bound on a received message, when the channel sets none. */
export const DEFAULT_MAX_RECEIVE = 4 * 1024 * 1024;

// Runs `work` on the event loop's next turn, once however often it is asked for before then.
export function onNextTurn(work: () => void): () => void {
  let queued = false;
  return () => {
    if (queued) return;
    queued = true;
    setImmediate(() => {
      queued = false;
      work();
    });
  };
}
