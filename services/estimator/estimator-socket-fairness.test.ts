// Server tests: the Kepler socket stays fair under clients that trickle bytes (issue 34: 64 clients
// sending a byte every 5 s locked every real request out). A real registry (the ec2 fixture pipeline)
// and a real estimator; Kepler's side is test/support/kepler-sidecar-client.ts. Time to answer under
// stalled clients is measured by `npm run bench -- overload`.
import { mkdtemp, rm } from "node:fs/promises";
import { type Socket, connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../kit/observe/logger.js";
import { createRegistryClient } from "../registry/client.js";
import { readRegistryConfig } from "../registry/config.js";
import { startRegistry } from "../registry/main.js";
import { zipFolderTree } from "../models/index.js";
import { importPipelineZip } from "../../test/support/import-pipeline-zip.js";
import { keplerSidecarCall } from "../../test/support/kepler-sidecar-client.js";
import { readEstimatorConfig } from "./config.js";
import { startEstimator } from "./main.js";

const FIXTURE = new URL("../../test/fixtures/registry/ec2-fixture", import.meta.url).pathname;
// Kepler 0.7.12's sidecar PowerRequest for the idle call, byte for byte (issue 12).
const KEPLER_IDLE =
  '{"metrics":["bpf_cpu_time_ms","bpf_page_cache_hit","bpf_net_tx_irq","bpf_net_rx_irq","bpf_block_irq","cpu_cycles","cpu_instructions","cache_miss"],"values":[[0,0,0,0,0,0,0,0]],"output_type":"AbsPower","source":"intel_rapl","system_features":["cpu_architecture"],"system_values":["unknown"],"trainer_name":"","filter":""}';

let dir: string;
let registryHandle: Awaited<ReturnType<typeof startRegistry>>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "socket-fairness-"));
  registryHandle = await startRegistry(
    { ...readRegistryConfig({}), host: "127.0.0.1", port: 0, modelPath: join(dir, "models"), rescanIntervalMs: 0 },
    { logger: silentLogger() },
  );
  const registry = createRegistryClient(registryHandle.address);
  expect((await importPipelineZip(registry, "ec2-fixture", await zipFolderTree(FIXTURE))).importedModelCount).toBe(3);
  registry.close();
});

afterAll(async () => {
  await registryHandle?.close();
  await rm(dir, { recursive: true, force: true });
});

/** A client that sends the start of a request and then one byte every `everyMs`, never finishing it. */
function trickle(path: string, everyMs: number): { socket: Socket; closed: Promise<void>; stop(): void } {
  const socket = connect(path);
  socket.on("error", () => undefined);
  let timer: NodeJS.Timeout | undefined;
  socket.on("connect", () => {
    socket.write('{"metrics":[');
    timer = setInterval(() => socket.write(" "), everyMs);
  });
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  void closed.then(() => clearInterval(timer));
  return {
    socket,
    closed,
    stop() {
      clearInterval(timer);
      socket.destroy();
    },
  };
}

async function startWithSocket(name: string, socketKeys: { socketMaxConnections?: number; socketRequestDeadlineMs?: number }) {
  const path = join(dir, name);
  const handle = await startEstimator(
    {
      ...readEstimatorConfig({}),
      host: "127.0.0.1",
      port: 0,
      registryAddress: registryHandle.address,
      estimatorSocket: path,
      ...socketKeys,
    },
    { logger: silentLogger() },
  );
  return { path, handle };
}

describe("the Kepler socket under stalled clients", () => {
  it("64 clients trickling bytes: real requests are answered, each with the model's powers", async () => {
    const { path, handle } = await startWithSocket("stalled.sock", {});
    const stalled = Array.from({ length: 64 }, () => trickle(path, 50));
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      for (let i = 0; i < 5; i++) {
        const reply = JSON.parse((await keplerSidecarCall(path, KEPLER_IDLE)).allBytes) as { msg: string; powers: object };
        expect(reply.msg).toBe("");
        expect(Object.keys(reply.powers).sort()).toEqual(["core", "dram", "package", "uncore"]);
      }
    } finally {
      for (const client of stalled) client.stop();
      await handle.close();
    }
  });

  it("every slot taken by trickling clients: a newcomer evicts the oldest unfinished one and is answered", async () => {
    const { path, handle } = await startWithSocket("full.sock", { socketMaxConnections: 8 });
    const stalled = Array.from({ length: 8 }, () => trickle(path, 50));
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(stalled.filter((client) => client.socket.destroyed)).toHaveLength(0);
      const reply = JSON.parse((await keplerSidecarCall(path, KEPLER_IDLE)).allBytes) as { msg: string };
      expect(reply.msg).toBe("");
      // The oldest was evicted for it; the other 7 are still held.
      await stalled[0]!.closed;
      expect(stalled.map((client) => client.socket.destroyed)).toEqual([true, false, false, false, false, false, false, false]);
    } finally {
      for (const client of stalled) client.stop();
      await handle.close();
    }
  });

  it("a newcomer given the busy reply is let go when its client closes (the server still closes)", async () => {
    const { path, handle } = await startWithSocket("busy.sock", { socketMaxConnections: 2 });
    // Two fresh unfinished requests: too young to evict, so the third connection is refused.
    const held = [trickle(path, 20), trickle(path, 20)];
    let closing: Promise<string> | undefined;
    try {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const reply = JSON.parse((await keplerSidecarCall(path, KEPLER_IDLE)).allBytes) as { msg: string };
      expect(reply.msg).toMatch(/^server busy: 2 requests open/);
    } finally {
      for (const client of held) client.stop();
      // Before the fix the refused connection, never read, never saw its client's FIN: close() hung.
      closing = Promise.race([
        handle.close().then(() => "closed"),
        new Promise<string>((resolve) => setTimeout(() => resolve("still open after 10 s"), 10_000)),
      ]);
    }
    expect(await closing).toBe("closed");
  });

  it("a request still unfinished at the deadline from its first byte is closed, though bytes keep coming", async () => {
    const { path, handle } = await startWithSocket("deadline.sock", { socketRequestDeadlineMs: 300 });
    const client = trickle(path, 20);
    try {
      await client.closed;
      // It wrote far more than once per idle timeout: only the whole-request deadline can have closed it.
      expect(client.socket.bytesWritten).toBeGreaterThan(12);
      const reply = JSON.parse((await keplerSidecarCall(path, KEPLER_IDLE)).allBytes) as { msg: string };
      expect(reply.msg).toBe("");
    } finally {
      client.stop();
      await handle.close();
    }
  });
});
