// Server tests: the Kepler socket's connections live on a thread of their own (estimator-socket-thread.ts).
// While the estimator's event loop is held, the thread still accepts, reads and answers what needs no
// estimate; a thread that ends is replaced. Real unix sockets; Kepler's side is a separate process when
// this process's loop is held (it could not send otherwise).
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../kit/observe/logger.js";
import { keplerSidecarCall } from "../../test/support/kepler-sidecar-client.js";
import { startTimedChild } from "../../test/support/timed-child.js";
import { KEPLER_0_7_12_IDLE } from "../../test/support/socket-estimator.js";
import { type EstimatorSocketHandle, startEstimatorSocket } from "./estimator-socket.js";

let dir: string;
let handle: EstimatorSocketHandle;
let estimates = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "socket-thread-"));
  handle = await startEstimatorSocket({
    path: join(dir, "estimator.sock"),
    logger: silentLogger(),
    // Four components of 10 W each: the answer says the estimate ran on this (the estimator's) loop.
    estimate: async (input) => {
      estimates++;
      return {
        componentPowers: ["package", "core", "uncore", "dram"].map((component) => ({
          component,
          powerWatts: new Float64Array(input.rowCount).fill(10),
        })),
        rowCount: input.rowCount,
        coreRatio: 1,
      };
    },
  });
});

afterAll(async () => {
  await handle?.close();
  await rm(dir, { recursive: true, force: true });
});

// One Kepler-shaped exchange from a process of its own: its reply and the wall-clock time it arrived.
function exchangeFromChild(path: string, request: string) {
  return startTimedChild<{ reply: string; atMs: number }>(`
    const socket = require("node:net").connect(${JSON.stringify(path)});
    let reply = "";
    socket.on("connect", () => { process.stdout.write("ready\\n"); socket.write(${JSON.stringify(request)}); });
    socket.on("data", (chunk) => (reply += chunk));
    socket.on("end", () => { process.stdout.write(JSON.stringify({ reply, atMs: Date.now() })); socket.end(); });`);
}

describe("estimator socket thread", () => {
  it("answers a malformed request while the estimator's loop is held, and an estimate once it is free", async () => {
    const path = handle.path;
    // Not a JSON object: the thread answers it without the estimator.
    const cut = exchangeFromChild(path, '["bpf_cpu_time_ms"]');
    await cut.ready;
    const estimated = exchangeFromChild(path, KEPLER_0_7_12_IDLE);
    await estimated.ready;
    const before = estimates;
    // Hold this loop for 2 s: nothing on it runs, the thread's sockets go on.
    const heldUntil = Date.now() + 2000;
    while (Date.now() < heldUntil);
    const [cutReply, estimateReply] = await Promise.all([cut.result, estimated.result]);
    // The malformed request is answered by the thread during the hold...
    expect(JSON.parse(cutReply.reply)).toMatchObject({ msg: expect.stringContaining("expected a JSON object") });
    expect(cutReply.atMs).toBeLessThan(heldUntil);
    // ...while the estimate waited for the loop: answered after the hold, by the estimator.
    expect(estimateReply.atMs).toBeGreaterThanOrEqual(heldUntil);
    expect(estimates).toBe(before + 1);
    expect(JSON.parse(estimateReply.reply)).toMatchObject({
      msg: "",
      powers: { package: [10], core: [10], uncore: [10], dram: [10] },
    });
  });

  it("replaces a thread that ends: Kepler's requests are answered again", async () => {
    const first = handle.thread;
    await first.terminate();
    const deadline = Date.now() + 10_000;
    let answered: { msg?: string } | undefined;
    while (answered === undefined && Date.now() < deadline) {
      const exchange = await keplerSidecarCall(handle.path, KEPLER_0_7_12_IDLE).catch(() => undefined);
      if (exchange !== undefined && exchange.allBytes !== "") answered = JSON.parse(exchange.allBytes) as { msg?: string };
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(answered?.msg).toBe("");
    expect(handle.thread).not.toBe(first);
  });

  it("closes while a thread that ended waits to be replaced: nothing is left listening", async () => {
    const path = join(dir, "closing.sock");
    const other = await startEstimatorSocket({
      path,
      logger: silentLogger(),
      estimate: () => Promise.reject(new Error("not called")),
    });
    await other.thread.terminate();
    await other.close();
    // Past the replacement's delay: no thread came back to listen on the path.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(existsSync(path)).toBe(false);
    await expect(keplerSidecarCall(path, KEPLER_0_7_12_IDLE)).rejects.toThrow();
  });
});
