// Shared by the registry's HTTP API tests: a registry with short HTTP timeouts on 127.0.0.1:0, Kepler
// 0.7.12's exact POST /model body, a linear model spec, a health probe and a raw TCP client.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createChannel, createClient } from "nice-grpc";
import { HealthDefinition } from "nice-grpc-server-health";
import { expect } from "vitest";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { startRegistry } from "../../services/registry/main.js";
import type { TestModelSpec } from "./model-archives.js";

export const FIXTURE = new URL("../fixtures/registry/ec2-fixture", import.meta.url).pathname;
export const BPF = ["bpf_cpu_time_ms", "bpf_page_cache_hit"];
export const SILENT_TIMEOUT_MS = 1000;

// Kepler 0.7.12's POST /model body, byte for byte (issue 12).
export const KEPLER_0712_BODY =
  '{"metrics":["bpf_cpu_time_ms","bpf_page_cache_hit","bpf_net_tx_irq","bpf_net_rx_irq","bpf_block_irq","cpu_cycles","cpu_instructions","cache_miss","cpu_architecture"],"output_type":"AbsPower","source":"intel_rapl","node_type":0,"weight":true,"trainer_name":"SGDRegressorTrainer","filter":"","machine_spec":{"vendor":"authenticamd","processor":"amd_epyc","cores":2,"chips":1,"memory":23,"frequency":2600,"threads_per_core":1}}';

export const fixtureFile = async (path: string) => readFile(join(FIXTURE, path));
export const fixtureJson = async (path: string) => JSON.parse((await fixtureFile(path)).toString("utf8"));

export function linearModel(extra: Partial<TestModelSpec>): TestModelSpec {
  return {
    pipelineName: "std",
    energySource: "rapl-sysfs",
    featureGroup: "BPFOnly",
    trainerName: "SGDRegressorTrainer",
    nodeType: 0,
    features: BPF,
    scale: [1000, 1],
    maeWatts: 10,
    withWeights: true,
    model: { kind: "linear", components: [0, 1, 2, 3].map((i) => ({ intercept: 50 + i, coefficients: [10, 1] })) },
    ...extra,
  };
}

export async function startTestRegistry() {
  const dir = await mkdtemp(join(tmpdir(), "registry-http-"));
  const handle = await startRegistry(
    {
      host: "127.0.0.1",
      port: 0,
      modelPath: dir,
      rescanIntervalMs: 0,
      sourcePipelines: [],
      httpHeadersTimeoutMs: SILENT_TIMEOUT_MS,
      httpRequestTimeoutMs: 5000,
    },
    { logger: silentLogger() },
  );
  const registry = createRegistryClient(handle.address);
  return {
    handle,
    registry,
    url: (path: string) => `http://${handle.address}${path}`,
    async close() {
      registry.close();
      await handle.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export type TestRegistry = Awaited<ReturnType<typeof startTestRegistry>>;

export const postModel = (server: TestRegistry, body: string | object) =>
  fetch(server.url("/model"), {
    method: "POST",
    headers: { "Content-Type": "application/json; charset=UTF-8" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

export async function expectServing(server: TestRegistry): Promise<void> {
  const channel = createChannel(server.handle.address);
  try {
    expect((await createClient(HealthDefinition, channel).check({ service: "" })).status).toBe(1);
  } finally {
    channel.close();
  }
}

// A raw TCP client: writes the given pieces (pausing between them) and collects what comes back until
// the server closes or one complete response (head plus Content-Length bytes) has arrived.
export function rawExchange(
  port: number,
  pieces: Array<string | Buffer>,
  pauseMs = 20,
): Promise<{ text: string; closedAfterMs: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const chunks: Buffer[] = [];
    const done = () => resolve({ text: Buffer.concat(chunks).toString("latin1"), closedAfterMs: Date.now() - started });
    const socket: Socket = connect(port, "127.0.0.1", async () => {
      for (const piece of pieces) {
        if (socket.destroyed) break;
        socket.write(piece);
        await new Promise((r) => setTimeout(r, pauseMs));
      }
    });
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      const text = Buffer.concat(chunks).toString("latin1");
      const headEnd = text.indexOf("\r\n\r\n");
      const length = /\r\ncontent-length: (\d+)\r\n/i.exec(text.slice(0, headEnd + 2));
      if (headEnd >= 0 && length !== null && text.length - headEnd - 4 >= Number(length[1])) {
        socket.destroy();
        done();
      }
    });
    socket.on("error", reject);
    socket.on("close", done);
  });
}
