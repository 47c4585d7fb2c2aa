// Server tests of the unix-socket estimator's start and stop: idle clients, stale and live socket files,
// a registry that never answers or is gone.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { type Server, createServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../kit/observe/logger.js";
import { readEstimatorConfig } from "./config.js";
import { startEstimator } from "./main.js";
import { keplerSidecarCall } from "../../test/support/kepler-sidecar-client.js";
import { KEPLER_0_7_12_IDLE, type SocketEstimator, startSocketEstimator } from "../../test/support/socket-estimator.js";

let dir: string;
let registryHandle: SocketEstimator["registryHandle"];
let started: SocketEstimator;

beforeAll(async () => {
  started = await startSocketEstimator();
  ({ dir, registryHandle } = started);
});

afterAll(async () => {
  await started.close();
});

describe("unix-socket estimator: start and stop", () => {
  const start = (path: string, registryAddress = registryHandle.address) =>
    startEstimator(
      { ...readEstimatorConfig({}), host: "127.0.0.1", port: 0, registryAddress, estimatorSocket: path },
      { logger: silentLogger(), socketLimits: { estimateDeadlineMs: 500, idleTimeoutMs: 300 } },
    );

  it("disconnects a client that connects and says nothing after the idle timeout, and goes on serving", async () => {
    const path = join(dir, "idle.sock");
    const handle = await start(path);
    try {
      expect((await keplerSidecarCall(path, [])).allBytes).toBe("");
      const exchange = await keplerSidecarCall(path, KEPLER_0_7_12_IDLE);
      expect(JSON.parse(exchange.allBytes)).toHaveProperty("msg", "");
    } finally {
      await handle.close();
    }
  });

  it("removes a stale socket file left by a killed estimator, and its own file on close", async () => {
    const path = join(dir, "stale.sock");
    const killed = spawnSync(process.execPath, [
      "-e",
      `require("node:net").createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, "SIGKILL"))`,
    ]);
    expect(killed.signal).toBe("SIGKILL");
    expect(existsSync(path)).toBe(true);
    const handle = await start(path);
    const exchange = await keplerSidecarCall(path, KEPLER_0_7_12_IDLE);
    expect(JSON.parse(exchange.allBytes)).toHaveProperty("msg", "");
    await handle.close();
    expect(existsSync(path)).toBe(false);
  });

  it("refuses to take over a socket a live server answers on, or a file that is not a socket", async () => {
    const path = join(dir, "live.sock");
    const live: Server = createServer();
    await new Promise<void>((resolve) => live.listen(path, resolve));
    await expect(start(path)).rejects.toThrow(
      `--estimator-socket: another server is listening on ${path}; stop it or choose another path`,
    );
    await new Promise<void>((resolve) => live.close(() => resolve()));
    const file = join(dir, "plain-file");
    await writeFile(file, "keep me");
    await expect(start(file)).rejects.toThrow(`--estimator-socket: ${file} exists and is not a socket; not replacing it`);
    expect(existsSync(file)).toBe(true);
  });

  it("answers within the deadline when the registry accepts connections but never answers", async () => {
    const silent: Server = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const address = silent.address() as { port: number };
    const path = join(dir, "deadline.sock");
    const handle = await start(path, `127.0.0.1:${address.port}`);
    try {
      const exchange = await keplerSidecarCall(path, KEPLER_0_7_12_IDLE);
      expect(exchange.allBytes).toBe(
        '{"powers": {}, "msg": "estimator: no estimate within 500 ms (model registry slow or unreachable)"}',
      );
    } finally {
      await handle.close();
      silent.close();
    }
  });

  it("answers an error when no registry listens", async () => {
    const probe: Server = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const path = join(dir, "no-registry.sock");
    const handle = await start(path, `127.0.0.1:${port}`);
    try {
      const exchange = await keplerSidecarCall(path, KEPLER_0_7_12_IDLE);
      expect(exchange.allBytes).toBe(
        `{"powers": {}, "msg": "registry: UNAVAILABLE: No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:${port}. Resolution note: "}`,
      );
    } finally {
      await handle.close();
    }
  });
});
