// The client's end of an in-process call (in-process-calls.ts): a grpc-js Call handed to a server of this process.
import * as grpc from "@grpc/grpc-js";
import type { Call, MessageContext, StatusObject } from "@grpc/grpc-js/build/src/call-interface.js";

import { type ClientEnd, type ClientListener, type ServerInternals, type ToClient, onNextTurn } from "./in-process-wire.js";
import { ServerSide } from "./in-process-server-side.js";

export interface Serving {
  readonly server: ServerInternals;
  readonly calls: Set<InProcessCall>;
  drained?: () => void;
}

/** One call: the client's end (grpc-js Call) and, through `server`, the server's end. */
export class InProcessCall implements Call, ClientEnd {
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
