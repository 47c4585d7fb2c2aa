// One TCP port for gRPC and HTTP/1.1: Kepler 0.7-0.9 POSTs to http://kepler-model-server:8100/model,
// the registry's gRPC port. A net.Server owns the port and looks at the first bytes of each
// connection: the HTTP/2 client preface goes to grpc-js (through its connection injector), anything
// else to a node:http server. A connection that says nothing is closed after the head timeout.
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server as HttpServer,
  type ServerResponse,
} from "node:http";
import { createServer as createNetServer, type Socket } from "node:net";
import { createServer as createTlsServer, type Server as TlsServer, type TLSSocket } from "node:tls";
import type { ServerTlsFiles } from "../security/tls-credentials.js";
import type { ConnectionInjector } from "@grpc/grpc-js";
import type { Logger } from "../observe/logger.js";

/** What every HTTP/2 (gRPC) connection starts with (RFC 9113 §3.4). */
const HTTP2_PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");

/** HTTP/1.1 served beside gRPC on the same port. */
export interface SharedPortHttpOptions {
  handler: (request: IncomingMessage, response: ServerResponse) => void;
  /** A connection must send a complete request head within this time, else it is closed (default 10 s). */
  headersTimeoutMs?: number;
  /** A whole request (head and body) must arrive within this time (default 30 s). */
  requestTimeoutMs?: number;
  /** An idle keep-alive connection is closed after this time (default 5 s). */
  keepAliveTimeoutMs?: number;
}

/** The listening front socket. */
export interface SharedPortListener {
  port: number;
  /** Stops accepting, lets HTTP requests finish for up to `graceMs`, then destroys what is left. */
  close(graceMs: number): Promise<void>;
}

type Protocol = "grpc" | "http";

// "grpc" once the preface is complete, "http" at the first byte that differs, undefined while undecided.
function sniff(bytes: Buffer): Protocol | undefined {
  const length = Math.min(bytes.length, HTTP2_PREFACE.length);
  if (!bytes.subarray(0, length).equals(HTTP2_PREFACE.subarray(0, length))) return "http";
  return length === HTTP2_PREFACE.length ? "grpc" : undefined;
}

/** Listens on host:port and routes each connection to grpc-js or the HTTP handler by its first bytes. */
export async function listenSharedPort(options: {
  host: string;
  port: number;
  injector: ConnectionInjector;
  http: SharedPortHttpOptions;
  /** TLS on the port: the front socket terminates it, then routes by the negotiated ALPN protocol. */
  tls?: ServerTlsFiles;
  logger: Logger;
}): Promise<SharedPortListener> {
  const headersTimeoutMs = options.http.headersTimeoutMs ?? 10_000;
  // Responses in flight, so close can wait for them (the HTTP server owns no listening socket).
  const active = new Set<ServerResponse>();
  let onIdle: (() => void) | undefined;
  const requestTimeoutMs = Math.max(options.http.requestTimeoutMs ?? 30_000, headersTimeoutMs);
  const httpServer: HttpServer = createHttpServer(
    {
      headersTimeout: headersTimeoutMs,
      requestTimeout: requestTimeoutMs,
      keepAliveTimeout: options.http.keepAliveTimeoutMs ?? 5000,
      // Node checks the two timeouts above on this interval (default 30 s, longer than they are).
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeoutMs / 4))),
    },
    (request, response) => {
      active.add(response);
      response.on("close", () => {
        active.delete(response);
        if (active.size === 0) onIdle?.();
      });
      options.http.handler(request, response);
    },
  );
  // node:http starts enforcing headersTimeout / requestTimeout (and tracking connections for
  // closeIdleConnections) on its "listening" event; this server never listens itself.
  httpServer.emit("listening");
  httpServer.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => {
    options.logger.debug({ code: error.code, reason: error.message }, "bad HTTP request");
    if (socket.writable && error.code !== "ECONNRESET") {
      const status = error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? "408 Request Timeout" : "400 Bad Request";
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      socket.setTimeout(1000, () => socket.destroy());
    } else {
      socket.destroy();
    }
  });

  // Connections still being sniffed: nobody else knows them, so close must.
  const undecided = new Set<Socket>();
  // Every accepted connection, whichever protocol, for the last step of close.
  const open = new Set<Socket>();
  const route = (socket: Socket): void => {
    open.add(socket);
    socket.once("close", () => open.delete(socket));
    undecided.add(socket);
    let received = Buffer.alloc(0);
    const timer = setTimeout(() => {
      options.logger.debug({ remote: socket.remoteAddress, bytes: received.length }, "silent connection closed");
      socket.destroy();
    }, headersTimeoutMs);
    const finish = (): void => {
      clearTimeout(timer);
      undecided.delete(socket);
      socket.off("data", onData);
      socket.off("error", onError);
      socket.off("close", finish);
    };
    const onError = (): void => finish();
    const onData = (chunk: Buffer): void => {
      received = Buffer.concat([received, chunk]);
      const protocol = sniff(received);
      if (protocol === undefined) return;
      finish();
      socket.pause();
      socket.unshift(received);
      if (protocol === "grpc") {
        // http2 reads what is already buffered on the socket, then consumes its handle.
        options.injector.injectConnection(socket);
      } else {
        // node:http consumes the socket's handle natively; the unshifted bytes reach its parser
        // through the stream, which resume() lets flow before the next read from the handle.
        httpServer.emit("connection", socket);
        socket.resume();
      }
    };
    socket.on("data", onData);
    socket.on("error", onError);
    socket.on("close", finish);
  };

  // With TLS, the ALPN protocol decides: gRPC clients offer only h2; HTTP clients that offer both (Go's
  // http.Client, curl) get http/1.1, because the server's preference order wins.
  const routeTls = (socket: TLSSocket): void => {
    open.add(socket);
    socket.once("close", () => open.delete(socket));
    if (socket.alpnProtocol === "h2") options.injector.injectConnection(socket);
    else httpServer.emit("connection", socket);
  };
  const tlsFiles = options.tls;
  const front =
    tlsFiles === undefined
      ? createNetServer({ pauseOnConnect: false }, route)
      : createTlsServer(
          {
            ...tlsFiles.contextOptions(),
            requestCert: tlsFiles.requireClientCertificate,
            rejectUnauthorized: tlsFiles.requireClientCertificate,
            ALPNProtocols: ["http/1.1", "h2"],
            handshakeTimeout: headersTimeoutMs,
          },
          routeTls,
        );
  const stopWatching =
    tlsFiles === undefined ? undefined : tlsFiles.onChange((context) => (front as TlsServer).setSecureContext(context));
  const port = await new Promise<number>((resolve, reject) => {
    front.once("error", reject);
    front.listen(options.port, options.host, () => {
      front.off("error", reject);
      const address = front.address();
      resolve(typeof address === "object" && address !== null ? address.port : options.port);
    });
  });

  return {
    port,
    async close(graceMs: number) {
      stopWatching?.();
      const stopped = new Promise<void>((resolve) => front.close(() => resolve()));
      for (const socket of undecided) socket.destroy();
      undecided.clear();
      // close() also closes idle keep-alive connections and stops the timeout checks; connections
      // with a request in flight get "Connection: close" on their response.
      httpServer.close();
      const deadline = Date.now() + graceMs;
      const until = async (done: Promise<void>): Promise<void> => {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          done,
          new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now())))),
        ]);
        clearTimeout(timer);
      };
      await until(active.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => (onIdle = resolve)));
      httpServer.closeAllConnections();
      // gRPC connections are drained by grpc-js meanwhile; whatever is still open at the deadline goes.
      await until(stopped);
      for (const socket of open) socket.destroy();
      await stopped;
    },
  };
}
