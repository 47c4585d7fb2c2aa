// The audit log (--audit-log): one JSON line per write call, over gRPC (a real registry with tokens,
// called over the network) and over HTTP (a write route on the shared port), none for reads.
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Metadata, Status, createChannel, createClient } from "nice-grpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RegistryServiceDefinition } from "../../generated/kepler/model/v1/registry_service.js";
import { OutputType } from "../../generated/kepler/model/v1/types.js";
import { startRegistry } from "../../registry/main.js";
import { silentLogger } from "../observe/logger.js";
import { openAuditLog, type AuditEntry } from "../security/audit-log.js";
import { INSECURE } from "../security/security-config.js";
import { startGrpcServer } from "../transport/grpc-server.js";
import { buildTestArchive } from "../../../test/support/model-archives.js";
import { model } from "../../../test/support/seeded-registry.js";

const CI_TOKEN = "ci-write-token-0123456789";
const READER_TOKEN = "dashboard-read-token-0123";
let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "audit-log-"));
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

const auditLines = async (path: string): Promise<AuditEntry[]> =>
  (await readFile(path, "utf8"))
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as AuditEntry);

const bearer = (token: string) => ({ metadata: Metadata({ authorization: `Bearer ${token}` }) });

describe("audit log over gRPC (registry with tokens)", () => {
  it("records each write with time, caller, peer, method, target and outcome; reads are not recorded", async () => {
    const auditPath = join(folder, "registry-audit.jsonl");
    const tokensFile = join(folder, "tokens");
    await writeFile(tokensFile, `ci:${CI_TOKEN}\ndashboard:${READER_TOKEN}:read\n`);
    await chmod(tokensFile, 0o600);
    const handle = await startRegistry(
      {
        host: "127.0.0.1",
        port: 0,
        modelPath: join(folder, "models"),
        rescanIntervalMs: 0,
        sourcePipelines: [],
        authTokensFile: tokensFile,
        auditLog: auditPath,
      },
      { logger: silentLogger() },
    );
    // Over the network (never in-process), as another machine would call.
    const channel = createChannel(`127.0.0.1:${handle.port}`);
    const registry = createClient(RegistryServiceDefinition, channel);
    const before = Date.now();
    try {
      const archive = await buildTestArchive(model("SGDRegressorTrainer", 0, 20, { pipelineName: "audited" }));
      const location = { ...archive.location, outputType: OutputType.OUTPUT_TYPE_ABS_POWER };
      await registry.publishModel(
        (async function* () {
          yield {
            content: {
              $case: "header" as const,
              value: { location, weightJson: "", archiveSizeBytes: archive.zip.byteLength, archiveSha256: "" },
            },
          };
          yield { content: { $case: "archiveChunk" as const, value: Buffer.from(archive.zip) } };
        })(),
        bearer(CI_TOKEN),
      );
      await registry.putPipelineMetadata(
        { pipelineName: "audited", metadataJson: '{"name":"audited"}', files: [] },
        bearer(CI_TOKEN),
      );
      // A read, with a token: not recorded.
      expect((await registry.listModels({ pipelineName: "audited" }, bearer(READER_TOKEN))).models).toHaveLength(1);
      // Refused writes are recorded with their outcome: a read token, no token, a failed precondition.
      await expect(registry.rollbackModel({ location }, bearer(READER_TOKEN))).rejects.toMatchObject({
        code: Status.PERMISSION_DENIED,
      });
      await expect(registry.indexMachine({ pipelineName: "audited", machineId: "m1", spec: undefined })).rejects.toMatchObject({
        code: Status.UNAUTHENTICATED,
      });
      await expect(registry.rollbackModel({ location }, bearer(CI_TOKEN))).rejects.toMatchObject({
        code: Status.FAILED_PRECONDITION,
      });
    } finally {
      channel.close();
      await handle.close();
    }
    const lines = await auditLines(auditPath);
    const modelPath = "rapl-sysfs/AbsPower/BPFOnly/SGDRegressorTrainer_0";
    expect(lines.map((l) => [l.method, l.caller, l.target, l.outcome])).toEqual([
      ["/kepler.model.v1.RegistryService/PublishModel", "ci", { pipeline: "audited", model: modelPath }, "OK"],
      ["/kepler.model.v1.RegistryService/PutPipelineMetadata", "ci", { pipeline: "audited" }, "OK"],
      // Denied before its request was read: who and what RPC, no target.
      ["/kepler.model.v1.RegistryService/RollbackModel", undefined, {}, "PERMISSION_DENIED"],
      ["/kepler.model.v1.RegistryService/IndexMachine", undefined, {}, "UNAUTHENTICATED"],
      ["/kepler.model.v1.RegistryService/RollbackModel", "ci", { pipeline: "audited", model: modelPath }, "FAILED_PRECONDITION"],
    ]);
    for (const line of lines) {
      expect(line.service).toBe("registry");
      expect(line.transport).toBe("grpc");
      expect(line.peer).toMatch(/^(ipv4:)?127\.0\.0\.1:\d+$/);
      const time = Date.parse(line.time);
      expect(time).toBeGreaterThanOrEqual(before - 1000);
      expect(time).toBeLessThanOrEqual(Date.now());
      expect(line.durationMs).toBeGreaterThanOrEqual(0);
    }
    expect(lines[2]?.details).toMatch(/^token "dashboard" has the read role/);
    expect(lines[4]?.details).toMatch(/has no earlier version to roll back to$/);
  });
});

describe("audit log over HTTP", () => {
  it("records a write route's call (peer, method with path, status) and not a read route's", async () => {
    const auditPath = join(folder, "http-audit.jsonl");
    const server = await startGrpcServer({
      serviceName: "audited",
      host: "127.0.0.1",
      port: 0,
      logger: silentLogger(),
      services: [],
      security: { ...INSECURE, auditLog: auditPath },
      http: {
        routes: [
          { method: "POST", path: "/write", access: "write", handle: (_, response) => void response.end("done") },
          { method: "GET", path: "/read", handle: (_, response) => void response.end("read") },
        ],
      },
    });
    try {
      const base = `http://${server.address}`;
      expect(await (await fetch(`${base}/write`, { method: "POST", body: "x" })).text()).toBe("done");
      expect(await (await fetch(`${base}/read`)).text()).toBe("read");
    } finally {
      await server.close();
    }
    const lines = await auditLines(auditPath);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ service: "audited", method: "POST /write", transport: "http", target: {}, outcome: "OK" });
    expect(lines[0]?.caller).toBeUndefined();
    expect(lines[0]?.peer).toMatch(/^(::ffff:)?127\.0\.0\.1:\d+$/);
  });

  it("an audit path that cannot be opened fails naming the flag", () => {
    expect(() => openAuditLog(join(folder, "no-such-folder", "audit.jsonl"))).toThrow(
      /^--audit-log: cannot append to .*audit\.jsonl: ENOENT/,
    );
  });
});
