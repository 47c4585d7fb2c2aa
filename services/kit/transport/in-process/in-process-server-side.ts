// The server's end of an in-process call (in-process-calls.ts).
import * as grpc from "@grpc/grpc-js";
import type { AuthContext } from "@grpc/grpc-js/build/src/auth-context.js";
import type { PartialStatusObject } from "@grpc/grpc-js/build/src/call-interface.js";
import { PerRequestMetricRecorder } from "@grpc/grpc-js/build/src/orca.js";
import type { ConnectionInfo } from "@grpc/grpc-js/build/src/server-interceptors.js";

import {
  type ClientEnd,
  DEFAULT_MAX_RECEIVE,
  type Handler,
  type ServerInternals,
  type ServerListener,
  type ToServer,
  onNextTurn,
} from "./in-process-wire.js";

/** The peer of a call made in-process by this process's own services (never crossed a socket). */
export const IN_PROCESS_PEER = "in-process";

/** The server's end of an in-process call, as grpc-js's handlers drive it. */
export class ServerSide implements grpc.ServerInterceptingCallInterface {
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
    private readonly call: ClientEnd,
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
    return IN_PROCESS_PEER;
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
