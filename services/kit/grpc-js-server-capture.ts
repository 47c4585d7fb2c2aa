// nice-grpc creates its grpc-js Server inside `listen()` and never exposes it, yet serving HTTP/1.1
// and gRPC on one port needs that Server's `createConnectionInjector`. The least fragile hook is the
// one call nice-grpc is sure to make: `listen()` constructs the Server and calls `bindAsync` on it
// synchronously, before its first await. For exactly that synchronous stretch, bindAsync on the
// prototype is replaced by a stand-in that records the instance and binds nothing; the original is
// restored before `listen()` returns its promise, so no other Server is ever affected. If a future
// nice-grpc stops calling bindAsync synchronously, the capture fails loudly here instead of serving
// nothing.
import * as grpc from "@grpc/grpc-js";
import type { Server } from "nice-grpc";

/** nice-grpc's grpc-js Server after a `listen()` that bound no port; connections are injected. */
export interface CapturedGrpcServer {
  grpcServer: grpc.Server;
  injector: grpc.ConnectionInjector;
}

/**
 * Runs `server.listen()` without binding a port and returns the grpc-js Server it created, with a
 * connection injector (the caller's own socket owns the port).
 */
export async function listenWithoutBinding(server: Server): Promise<CapturedGrpcServer> {
  const prototype = grpc.Server.prototype;
  const original = Object.getOwnPropertyDescriptor(prototype, "bindAsync");
  let captured: grpc.Server | undefined;
  let listening: Promise<number>;
  const standIn: grpc.Server["bindAsync"] = function (this: grpc.Server, _address, _credentials, callback) {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- recording the instance is the point.
    captured = this;
    process.nextTick(() => callback(null, 0));
  };
  Object.defineProperty(prototype, "bindAsync", { ...original, value: standIn });
  try {
    listening = server.listen("unused:0");
  } finally {
    if (original !== undefined) Object.defineProperty(prototype, "bindAsync", original);
  }
  if (captured === undefined) {
    await listening.catch(() => undefined);
    throw new Error("nice-grpc did not create its grpc-js Server synchronously in listen(): cannot share the port");
  }
  await listening;
  return { grpcServer: captured, injector: captured.createConnectionInjector(grpc.ServerCredentials.createInsecure()) };
}
