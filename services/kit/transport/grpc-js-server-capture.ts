// nice-grpc creates its grpc-js Server inside `listen()` and never exposes it, yet serving HTTP/1.1
// and gRPC on one port needs that Server's `createConnectionInjector`. The least fragile hook is the
// one call nice-grpc is sure to make: `listen()` constructs the Server and calls `bindAsync` on it
// synchronously, before its first await. For exactly that synchronous stretch, bindAsync on the
// prototype is replaced by a stand-in that records the instance and binds nothing; the original is
// restored before `listen()` returns its promise, so no other Server is ever affected. If a future
// nice-grpc stops calling bindAsync synchronously, the capture fails loudly here instead of serving
// nothing. The same hook hands the Server over before a normal bind (listenWith), for direct methods.
import * as grpc from "@grpc/grpc-js";
import type { Server } from "nice-grpc";

/** nice-grpc's grpc-js Server after a `listen()` that bound no port; connections are injected. */
export interface CapturedGrpcServer {
  grpcServer: grpc.Server;
  injector: grpc.ConnectionInjector;
}

/**
 * Runs `server.listen()` without binding a port and returns the grpc-js Server it created, with a
 * connection injector (the caller's own socket owns the port). `beforeServe` sees the Server first.
 */
export async function listenWithoutBinding(
  server: Server,
  beforeServe: (grpcServer: grpc.Server) => void = () => {},
): Promise<CapturedGrpcServer> {
  let captured: grpc.Server | undefined;
  const listening = duringBind(server, "unused:0", undefined, (grpcServer, _original, bound) => {
    captured = grpcServer;
    beforeServe(grpcServer);
    process.nextTick(() => bound(null, 0));
  });
  if (captured === undefined) {
    await listening.catch(() => undefined);
    throw new Error("nice-grpc did not create its grpc-js Server synchronously in listen(): cannot share the port");
  }
  await listening;
  return { grpcServer: captured, injector: captured.createConnectionInjector(grpc.ServerCredentials.createInsecure()) };
}

/**
 * Runs `server.listen(address, credentials)` and hands the grpc-js Server to `beforeServe` just
 * before it binds (after nice-grpc added its services), e.g. to register direct methods.
 */
export async function listenWith(
  server: Server,
  address: string,
  credentials: grpc.ServerCredentials | undefined,
  beforeServe: (grpcServer: grpc.Server) => void,
): Promise<number> {
  let seen = false;
  const listening = duringBind(server, address, credentials, (grpcServer, original, bound, boundAddress, boundCredentials) => {
    seen = true;
    beforeServe(grpcServer);
    original.call(grpcServer, boundAddress, boundCredentials, bound);
  });
  if (!seen) {
    // listen() failed before binding (its error is the one to report), or no longer binds synchronously.
    await listening;
    throw new Error("nice-grpc did not create its grpc-js Server synchronously in listen()");
  }
  return listening;
}

// Calls server.listen() with grpc-js's bindAsync replaced by `standIn` for the synchronous stretch
// in which nice-grpc constructs its Server and binds it; the original is restored before returning.
function duringBind(
  server: Server,
  address: string,
  credentials: grpc.ServerCredentials | undefined,
  standIn: (
    grpcServer: grpc.Server,
    original: grpc.Server["bindAsync"],
    callback: (error: Error | null, port: number) => void,
    address: string,
    credentials: grpc.ServerCredentials,
  ) => void,
): Promise<number> {
  const prototype = grpc.Server.prototype;
  const original = Object.getOwnPropertyDescriptor(prototype, "bindAsync");
  const replacement: grpc.Server["bindAsync"] = function (this: grpc.Server, boundAddress, boundCredentials, callback) {
    standIn(this, original?.value as grpc.Server["bindAsync"], callback, boundAddress, boundCredentials);
  };
  Object.defineProperty(prototype, "bindAsync", { ...original, value: replacement });
  try {
    return server.listen(address, credentials);
  } finally {
    if (original !== undefined) Object.defineProperty(prototype, "bindAsync", original);
  }
}
