// Calls between services of one process (the mesh of `npm start`, the pipeline command) without the
// network: a peer client whose target is a plaintext server of this process hands each call straight to
// that server's grpc-js handler (the in-process transport gRPC has in Go and Java). Nothing else changes:
// requests and responses are still encoded by the generated client and decoded by the server's own
// tolerant, bounded decoders, every server middleware runs (auth, bounds, metrics, logging), message
// limits, metadata, deadlines, cancellation and flow control behave as over HTTP/2 (a message is taken
// only when the other side reads). What goes away is HTTP/2 framing, the socket and grpc-js's channel
// stack, most of the cost of a call between two services of one event loop. TLS servers and clients keep
// the wire; so does everything when grpc-js's internals this needs are not there. Each hop between the two
// ends waits for the event loop's next turn (setImmediate), as a socket read would: a client calling in a
// loop cannot starve timers and I/O.
import * as grpc from "@grpc/grpc-js";
import type { AuthContext } from "@grpc/grpc-js/build/src/auth-context.js";
import type {
  Call,
  InterceptingListener,
  MessageContext,
  PartialStatusObject,
  StatusObject,
} from "@grpc/grpc-js/build/src/call-interface.js";
import { PerRequestMetricRecorder } from "@grpc/grpc-js/build/src/orca.js";
import type { ConnectionInfo } from "@grpc/grpc-js/build/src/server-interceptors.js";

/** A grpc-js method handler as the Server keeps it. */
interface Handler {
  serialize(value: unknown): Buffer;
  deserialize(bytes: Buffer): unknown;
  type: string;
  path: string;
}

// grpc-js has no public API for these: the registered handlers, the server's options and the function
// that runs a handler on a call (the same one its HTTP/2 streams go through).
interface ServerInternals {
  handlers: Map<string, Handler>;
  options: grpc.ServerOptions;
  interceptors?: unknown[];
  _runHandlerForCall(call: ServerSide, handler: Handler): boolean;
}

type ServerListener = Parameters<grpc.ServerInterceptingCallInterface["start"]>[0];
type ClientListener = InterceptingListener;

const LOOPBACK = new Set(["localhost", "127.0.0.1", "::1", "0.0.0.0", "::", ""]);
const DEFAULT_MAX_RECEIVE = 4 * 1024 * 1024;

// Servers on a loopback or wildcard host answer any loopback name; others only their own host.
function serverKey(host: string, port: number | string): string {
  const bare = host.replace(/^\[|\]$/g, "");
  return `${LOOPBACK.has(bare) ? "loopback" : bare}:${port}`;
}

function targetKey(target: string): string | undefined {
  const match = /^(?:dns:(?:\/\/[^/]*\/)?)?(\[[^\]]+\]|[^:/]*):(\d+)$/.exec(target);
  return match === null ? undefined : serverKey(match[1]!, match[2]!);
}

interface Serving {
  readonly server: ServerInternals;
  readonly calls: Set<InProcessCall>;
  drained?: () => void;
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
    (internals.interceptors?.length ?? 0) > 0
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

// Runs `work` on the event loop's next turn, once however often it is asked for before then.
function onNextTurn(work: () => void): () => void {
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

type ToClient =
  | { kind: "metadata"; metadata: grpc.Metadata }
  | { kind: "message"; bytes: Buffer; written: () => void }
  | { kind: "status"; status: StatusObject };
type ToServer = { kind: "message"; bytes: Buffer; taken?: () => void } | { kind: "halfClose" };

/** One call: the client's end (grpc-js Call) and, through `server`, the server's end. */
class InProcessCall implements Call {
  private listener: ClientListener | undefined;
  private readonly toClient: ToClient[] = [];
  private clientReading = false;
  private ended = false;
  private readonly pumpSoon = onNextTurn(() => this.pump());
  private deadlineTimer: NodeJS.Timeout | undefined;
  readonly server: ServerSide;

  constructor(
    private readonly entry: Serving,
    private readonly method: string,
    deadline: grpc.Deadline,
    private readonly target: string,
    private readonly limits: { maxSend: number; maxReceive: number },
    private readonly number: number,
  ) {
    const at = deadline instanceof Date ? deadline.getTime() : deadline;
    this.server = new ServerSide(this, entry.server, at, target);
    if (Number.isFinite(at)) {
      this.deadlineTimer = setTimeout(
        () => this.cancelWithStatus(grpc.status.DEADLINE_EXCEEDED, "Deadline exceeded"),
        Math.max(0, at - Date.now()),
      );
    }
  }

  start(metadata: grpc.Metadata, listener: ClientListener): void {
    this.listener = listener;
    this.entry.calls.add(this);
    const handler = this.entry.server.handlers.get(this.method);
    setImmediate(() => {
      if (this.ended) return;
      if (handler === undefined) {
        this.endWith(grpc.status.UNIMPLEMENTED, `The server does not implement the method ${this.method}`);
        return;
      }
      this.server.begin(metadata.clone(), handler);
    });
  }

  sendMessageWithContext(context: MessageContext, message: Buffer): void {
    if (this.ended) return;
    if (this.limits.maxSend !== -1 && message.length > this.limits.maxSend) {
      this.cancelWithStatus(
        grpc.status.RESOURCE_EXHAUSTED,
        `Sent message larger than max (${message.length} vs. ${this.limits.maxSend})`,
      );
      return;
    }
    this.server.receive({ kind: "message", bytes: message, taken: context.callback && (() => context.callback?.()) });
  }

  halfClose(): void {
    if (!this.ended) this.server.receive({ kind: "halfClose" });
  }

  startRead(): void {
    this.clientReading = true;
    this.pumpSoon();
  }

  cancelWithStatus(code: grpc.status, details: string): void {
    if (this.ended) return;
    this.toClient.length = 0;
    this.server.cancel();
    this.endWith(code, details);
  }

  getPeer(): string {
    return this.target;
  }

  getCallNumber(): number {
    return this.number;
  }

  setCredentials(): void {}

  getAuthContext(): null {
    return null;
  }

  /** From the server's end: metadata, a message (written() once the client took it) or the status. */
  deliver(item: ToClient): void {
    if (this.ended) return;
    if (item.kind === "message" && this.limits.maxReceive !== -1 && item.bytes.length > this.limits.maxReceive) {
      this.cancelWithStatus(
        grpc.status.RESOURCE_EXHAUSTED,
        `Received message larger than max (${item.bytes.length} vs. ${this.limits.maxReceive})`,
      );
      return;
    }
    this.toClient.push(item);
    this.pumpSoon();
  }

  private endWith(code: grpc.status, details: string, metadata = new grpc.Metadata()): void {
    this.toClient.push({ kind: "status", status: { code, details, metadata } });
    this.ended = true;
    this.pumpSoon();
  }

  // Metadata and the status go as soon as they are next; a message waits for a read.
  private pump(): void {
    const listener = this.listener;
    if (listener === undefined) return;
    for (;;) {
      const next = this.toClient[0];
      if (next === undefined) return;
      if (next.kind === "message") {
        if (!this.clientReading) return;
        this.clientReading = false;
        this.toClient.shift();
        next.written();
        listener.onReceiveMessage(next.bytes);
      } else if (next.kind === "metadata") {
        this.toClient.shift();
        listener.onReceiveMetadata(next.metadata);
      } else {
        this.toClient.length = 0;
        this.finish();
        listener.onReceiveStatus(next.status);
        return;
      }
    }
  }

  private finish(): void {
    this.ended = true;
    clearTimeout(this.deadlineTimer);
    this.entry.calls.delete(this);
    if (this.entry.calls.size === 0) this.entry.drained?.();
  }

  /** The server sent its status. */
  serverEnded(status: StatusObject): void {
    if (this.ended) return;
    this.toClient.push({ kind: "status", status });
    this.ended = true;
    this.pumpSoon();
  }
}

/** The server's end of an in-process call, as grpc-js's handlers drive it. */
class ServerSide implements grpc.ServerInterceptingCallInterface {
  private listener: ServerListener | undefined;
  private handler: Handler | undefined;
  private metadata = new grpc.Metadata();
  private readonly queue: ToServer[] = [];
  private reading = false;
  private readonly pumpSoon = onNextTurn(() => this.pump());
  private metadataSent = false;
  private done = false;
  private cancelNotified = false;

  constructor(
    private readonly call: InProcessCall,
    private readonly server: ServerInternals,
    private readonly deadline: number,
    private readonly host: string,
  ) {}

  begin(metadata: grpc.Metadata, handler: Handler): void {
    this.metadata = metadata;
    this.handler = handler;
    if (!this.server._runHandlerForCall(this, handler))
      this.sendStatus({ code: grpc.status.INTERNAL, details: `Unknown handler type: ${handler.type}` });
  }

  receive(item: ToServer): void {
    if (this.done) return;
    const maxReceive = (this.server.options["grpc.max_receive_message_length"] as number | undefined) ?? DEFAULT_MAX_RECEIVE;
    if (item.kind === "message" && maxReceive !== -1 && item.bytes.length > maxReceive) {
      this.sendStatus({
        code: grpc.status.RESOURCE_EXHAUSTED,
        details: `Received message larger than max (${item.bytes.length} vs. ${maxReceive})`,
      });
      return;
    }
    this.queue.push(item);
    this.pumpSoon();
  }

  cancel(): void {
    this.done = true;
    this.queue.length = 0;
    this.notifyCancel();
  }

  start(listener: ServerListener): void {
    if (this.done) return;
    this.listener = listener;
    listener.onReceiveMetadata(this.metadata);
  }

  startRead(): void {
    this.reading = true;
    this.pumpSoon();
  }

  sendMetadata(metadata: grpc.Metadata): void {
    if (this.done || this.metadataSent) return;
    this.metadataSent = true;
    this.call.deliver({ kind: "metadata", metadata: metadata?.clone() ?? new grpc.Metadata() });
  }

  sendMessage(message: unknown, callback: () => void): void {
    if (this.done) return;
    let bytes: Buffer;
    try {
      bytes = this.handler!.serialize(message);
    } catch {
      this.sendStatus({ code: grpc.status.INTERNAL, details: "Error serializing response" });
      return;
    }
    const maxSend = (this.server.options["grpc.max_send_message_length"] as number | undefined) ?? -1;
    if (maxSend !== -1 && bytes.length > maxSend) {
      this.sendStatus({
        code: grpc.status.RESOURCE_EXHAUSTED,
        details: `Sent message larger than max (${bytes.length} vs. ${maxSend})`,
      });
      return;
    }
    this.sendMetadata(new grpc.Metadata());
    this.call.deliver({ kind: "message", bytes, written: callback });
  }

  sendStatus(status: PartialStatusObject): void {
    if (this.done) return;
    this.sendMetadata(new grpc.Metadata());
    this.done = true;
    this.call.serverEnded({
      code: status.code,
      details: status.details,
      metadata: status.metadata?.clone() ?? new grpc.Metadata(),
    });
    // grpc-js tells the handler its call is over once the status is out, as after a cancellation.
    this.notifyCancel();
  }

  getPeer(): string {
    return "in-process";
  }

  getDeadline(): grpc.Deadline {
    return this.deadline;
  }

  getHost(): string {
    return this.host;
  }

  getAuthContext(): AuthContext {
    return {};
  }

  getConnectionInfo(): ConnectionInfo {
    return {};
  }

  getMetricsRecorder(): PerRequestMetricRecorder {
    return new PerRequestMetricRecorder();
  }

  private notifyCancel(): void {
    if (this.cancelNotified) return;
    this.cancelNotified = true;
    process.nextTick(() => this.listener?.onCancel());
  }

  // One request message per read, decoded by the server's own decoder; the client's write completes then.
  private pump(): void {
    while (this.reading && this.listener !== undefined && !this.done && this.queue.length > 0) {
      this.reading = false;
      const next = this.queue.shift()!;
      if (next.kind === "halfClose") {
        this.listener.onReceiveHalfClose();
        continue;
      }
      next.taken?.();
      let request: unknown;
      try {
        request = this.handler!.deserialize(next.bytes);
      } catch {
        this.sendStatus({ code: grpc.status.INTERNAL, details: "Error deserializing request" });
        return;
      }
      this.listener.onReceiveMessage(request);
    }
  }
}
