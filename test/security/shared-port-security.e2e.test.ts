// The registry's shared port (gRPC and Kepler's HTTP routes) under the security settings: with TLS, one
// TLS listener serves both, routed by ALPN (gRPC clients offer only h2; HTTP clients that offer h2 and
// http/1.1, as Go's http.Client and curl do, get http/1.1) and plaintext is refused; with --auth-reads,
// HTTP requests need a bearer token like gRPC reads.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect as tlsConnect } from "node:tls";
import { afterAll, describe, expect, it } from "vitest";
import { type ServerHandle, startGrpcServer } from "../../services/kit/transport/grpc-server.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { INSECURE, type SecurityConfig } from "../../services/kit/security/security-config.js";
import { createCa, issueCertificate, OPENSSL } from "./test-certificates.js";
import { needs } from "../support/system-tools.js";
import { healthWith } from "../support/health-with.js";

const folder = mkdtempSync(join(tmpdir(), "shared-port-security-"));
const ca = createCa(folder, "ca");
const server = issueCertificate(folder, ca, "server");
const tokensFile = join(folder, "tokens");
writeFileSync(tokensFile, "reader:read-secret-0123456789:read\nwriter:write-secret-0123456789:write\n");
afterAll(() => rmSync(folder, { recursive: true, force: true }));

async function startShared(security: Partial<SecurityConfig>): Promise<ServerHandle> {
  return startGrpcServer({
    serviceName: "shared-port-test",
    host: "127.0.0.1",
    port: 0,
    logger: silentLogger(),
    services: [],
    security: { ...INSECURE, ...security },
    http: {
      routes: [
        { method: "GET", path: "/best-models" },
        { method: "POST", path: "/model" },
        { method: "GET", path: "/ui", prefix: true },
      ].map((route) => ({
        ...(route as { method: "GET" | "POST"; path: string; prefix?: boolean }),
        handle: (request: IncomingMessage, response: ServerResponse) => {
          response.writeHead(200, { "Content-Type": "application/json" });
          response.end(JSON.stringify({ path: request.url }));
        },
      })),
    },
  });
}

function httpsGet(address: string, path: string): Promise<{ status: number; body: string }> {
  const [host, port] = address.split(":");
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host, port: Number(port), path, method: "GET", ca: readFileSync(ca.cert), servername: "localhost" },
      (response) => {
        let body = "";
        response.on("data", (chunk: Buffer) => (body += chunk.toString()));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

describe("the shared HTTP/gRPC port", needs(OPENSSL), () => {
  it("with TLS: gRPC and HTTPS on one port, ALPN picks http/1.1 for clients offering both, plaintext refused", async () => {
    const handle = await startShared({ tlsCert: server.cert, tlsKey: server.key });
    try {
      expect(await healthWith(handle.address, { tlsCa: ca.cert, tlsServerName: "localhost" })).toBe("SERVING");
      expect(await healthWith(handle.address, {})).toBe("UNAVAILABLE");
      expect(await httpsGet(handle.address, "/best-models")).toEqual({ status: 200, body: '{"path":"/best-models"}' });
      const [host, port] = handle.address.split(":");
      const negotiated = await new Promise<string | false | null>((resolve, reject) => {
        const socket = tlsConnect(
          { host, port: Number(port), ca: readFileSync(ca.cert), servername: "localhost", ALPNProtocols: ["h2", "http/1.1"] },
          () => {
            resolve(socket.alpnProtocol);
            socket.destroy();
          },
        );
        socket.on("error", reject);
      });
      expect(negotiated).toBe("http/1.1");
      const plaintext = await fetch(`http://${handle.address}/best-models`).catch((error: unknown) => error);
      expect(plaintext).toBeInstanceOf(Error);
    } finally {
      await handle.close();
    }
  });

  it("with --auth-reads: HTTP needs a bearer token (401 without, 200 with a read token)", async () => {
    const handle = await startShared({ authTokensFile: tokensFile, authReads: true });
    try {
      const bare = await fetch(`http://${handle.address}/best-models`);
      expect(bare.status).toBe(401);
      expect(bare.headers.get("www-authenticate")).toBe("Bearer");
      expect(await bare.text()).toContain("bearer token");
      // The model browser page too (every path of the HTTP handler is guarded).
      expect((await fetch(`http://${handle.address}/ui`)).status).toBe(401);
      const unknown = await fetch(`http://${handle.address}/best-models`, { headers: { Authorization: "Bearer nope" } });
      expect(unknown.status).toBe(401);
      const ok = await fetch(`http://${handle.address}/best-models`, {
        headers: { Authorization: "Bearer read-secret-0123456789" },
      });
      expect(ok.status).toBe(200);
    } finally {
      await handle.close();
    }
  });

  it("without --auth-reads the HTTP reads stay open while tokens guard writes", async () => {
    const handle = await startShared({ authTokensFile: tokensFile });
    try {
      expect((await fetch(`http://${handle.address}/model`, { method: "POST", body: "{}" })).status).toBe(200);
    } finally {
      await handle.close();
    }
  });
});
