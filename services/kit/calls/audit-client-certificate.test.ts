// The audit log names the TLS client certificate of a write under mTLS (subject and SHA-256 fingerprint),
// over gRPC (grpc-js's own TLS server, and the shared port's TLS front) and over HTTPS, with certificates
// made by the openssl CLI; a client cannot forge it by sending the metadata key itself.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Metadata, Status } from "nice-grpc";
import { afterAll, describe, expect, it } from "vitest";
import { RegistryServiceDefinition } from "../../generated/kepler/model/v1/registry_service.js";
import { createCa, issueCertificate, OPENSSL, type IssuedCertificate } from "../../../test/security/test-certificates.js";
import { needs } from "../../../test/support/system-tools.js";
import { silentLogger } from "../observe/logger.js";
import type { AuditEntry } from "../security/audit-log.js";
import { CLIENT_CERTIFICATE_METADATA } from "../security/client-certificate.js";
import { clientConnection } from "../security/peer-connection.js";
import { INSECURE, type SecurityConfig } from "../security/security-config.js";
import { startGrpcServer } from "../transport/grpc-server.js";
import { createPeerClient } from "../transport/grpc-client.js";
import type { HttpFrontOptions } from "../transport/grpc-server.js";
import { withUnimplemented } from "./unimplemented.js";

const folder = mkdtempSync(join(tmpdir(), "audit-certificate-"));
const ca = createCa(folder, "ca");
const serverCertificate = issueCertificate(folder, ca, "server");
const publisher = issueCertificate(folder, ca, "ci-publisher");
const operator = issueCertificate(folder, ca, "operator");
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** What a client may send to pretend to be someone: the key the server's interceptor writes. */
const FORGED = Metadata({
  [CLIENT_CERTIFICATE_METADATA]: encodeURIComponent(JSON.stringify({ subject: "CN=admin", fingerprint256: "00:11" })),
});

// The fingerprint as openssl prints it ("sha256 Fingerprint=AB:CD:..."), not as the code under test does.
function opensslFingerprint(certificate: IssuedCertificate): string {
  const out = execFileSync("openssl", ["x509", "-in", certificate.cert, "-noout", "-fingerprint", "-sha256"], {
    encoding: "utf8",
  });
  return out.trim().replace(/^sha256 Fingerprint=/i, "");
}

const auditLines = (path: string): AuditEntry[] =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as AuditEntry);

async function startAuditedRegistry(security: Partial<SecurityConfig>, http?: HttpFrontOptions) {
  return startGrpcServer({
    serviceName: "registry",
    host: "127.0.0.1",
    port: 0,
    logger: silentLogger(),
    security: { ...INSECURE, ...security },
    services: [
      {
        definition: RegistryServiceDefinition,
        implementation: withUnimplemented(RegistryServiceDefinition, {
          putPipelineMetadata: async () => ({}),
          listModels: async () => ({ models: [] }),
        }),
      },
    ],
    ...(http === undefined ? {} : { http }),
  });
}

function registryAs(address: string, client: IssuedCertificate | undefined) {
  const tls = client === undefined ? {} : { tlsCa: ca.cert, tlsCert: client.cert, tlsKey: client.key };
  return createPeerClient(RegistryServiceDefinition, address, clientConnection({ ...INSECURE, ...tls }));
}

// POST over HTTPS presenting `client`'s certificate; resolves with the status.
function postAs(address: string, path: string, client: IssuedCertificate): Promise<number> {
  const [host, port] = address.split(":");
  return new Promise((resolve, reject) => {
    const call = request(
      {
        host,
        port: Number(port),
        path,
        method: "POST",
        servername: "localhost",
        ca: readFileSync(ca.cert),
        cert: readFileSync(client.cert),
        key: readFileSync(client.key),
      },
      (response) => {
        response.resume();
        response.on("end", () => resolve(response.statusCode ?? 0));
      },
    );
    call.on("error", reject);
    call.end("x");
  });
}

const mtls = (auditLog: string): Partial<SecurityConfig> => ({
  tlsCert: serverCertificate.cert,
  tlsKey: serverCertificate.key,
  tlsClientCa: ca.cert,
  auditLog,
});

describe("audit log: the client certificate under mTLS", needs(OPENSSL), () => {
  it("gRPC on grpc-js's TLS server: a write names the verified certificate, not the forged metadata; reads are not recorded", async () => {
    const auditPath = join(folder, "grpc.jsonl");
    const server = await startAuditedRegistry(mtls(auditPath));
    const peer = registryAs(server.address, publisher);
    try {
      await peer.client.putPipelineMetadata({ pipelineName: "audited", metadataJson: "{}", files: [] }, { metadata: FORGED });
      expect((await peer.client.listModels({ pipelineName: "audited" })).models).toEqual([]);
      await expect(peer.client.rollbackModel({ location: undefined })).rejects.toMatchObject({ code: Status.UNIMPLEMENTED });
    } finally {
      peer.close();
      await server.close();
    }
    const who = { subject: "CN=ci-publisher", fingerprint256: opensslFingerprint(publisher) };
    expect(who.fingerprint256).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(auditLines(auditPath).map((line) => [line.method, line.outcome, line.clientCertificate])).toEqual([
      ["/kepler.model.v1.RegistryService/PutPipelineMetadata", "OK", who],
      ["/kepler.model.v1.RegistryService/RollbackModel", "UNIMPLEMENTED", who],
    ]);
  });

  it("gRPC and HTTPS on the shared port: each write names its own client's certificate", async () => {
    const auditPath = join(folder, "shared.jsonl");
    const server = await startAuditedRegistry(mtls(auditPath), {
      routes: [{ method: "POST", path: "/write", access: "write", handle: (_, response) => void response.end("done") }],
    });
    const peer = registryAs(server.address, publisher);
    try {
      await peer.client.putPipelineMetadata({ pipelineName: "audited", metadataJson: "{}", files: [] }, { metadata: FORGED });
      expect(await postAs(server.address, "/write", operator)).toBe(200);
    } finally {
      peer.close();
      await server.close();
    }
    expect(auditLines(auditPath).map((line) => [line.transport, line.method, line.clientCertificate])).toEqual([
      [
        "grpc",
        "/kepler.model.v1.RegistryService/PutPipelineMetadata",
        { subject: "CN=ci-publisher", fingerprint256: opensslFingerprint(publisher) },
      ],
      ["http", "POST /write", { subject: "CN=operator", fingerprint256: opensslFingerprint(operator) }],
    ]);
  });

  it("without mTLS a write names no certificate, whatever metadata the client sends", async () => {
    const auditPath = join(folder, "plaintext.jsonl");
    const server = await startAuditedRegistry({ auditLog: auditPath });
    const peer = registryAs(server.address, undefined);
    try {
      await peer.client.putPipelineMetadata({ pipelineName: "audited", metadataJson: "{}", files: [] }, { metadata: FORGED });
    } finally {
      peer.close();
      await server.close();
    }
    const lines = auditLines(auditPath);
    expect(lines.map((line) => [line.method, line.outcome])).toEqual([
      ["/kepler.model.v1.RegistryService/PutPipelineMetadata", "OK"],
    ]);
    expect(lines[0]).not.toHaveProperty("clientCertificate");
  });
});
