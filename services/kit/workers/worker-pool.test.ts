// The worker pool: tasks run on worker threads (never the caller's), domain errors keep their class and
// field, a worker that dies fails only its task and is replaced, and a closed pool refuses work.
import { threadId } from "node:worker_threads";
import { afterAll, describe, expect, it } from "vitest";
import { WasmKernelError } from "../../../wasm-core/src/index.js";
import { InvalidInputError } from "../../domain/errors.js";
import type { ProbeTask } from "../../../test/support/probe-worker.js";
import { createWorkerPool, workerThreadsKey } from "./worker-pool.js";
import { readConfig } from "../config/config-schema.js";

const entry = new URL("../../../test/support/probe-worker.ts", import.meta.url);
const pool = createWorkerPool<ProbeTask, unknown>({ entry, size: 2, name: "probe" });
afterAll(() => pool.close());

describe("worker pool", () => {
  it("runs tasks on at most `size` worker threads, answering each in order", async () => {
    const threads = await Promise.all(Array.from({ length: 6 }, () => pool.run({ kind: "thread" })));
    expect(threads.every((id) => typeof id === "number" && id !== threadId)).toBe(true);
    expect(new Set(threads).size).toBeLessThanOrEqual(2);
    expect(await pool.run({ kind: "echo", values: new Float64Array([1, 2.5]) })).toEqual(new Float64Array([2, 5]));
  });

  it.runIf(process.platform === "linux")("runs workers at nice 10, below the event loop", async () => {
    expect(await pool.run({ kind: "priority" })).toBe(10);
  });

  it("rethrows a domain or kernel error with its class and fields", async () => {
    const error = await pool.run({ kind: "invalid", field: "options.level" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ field: "options.level", reason: "rejected in the worker" });
    const kernel = await pool.run({ kind: "kernel" }).catch((e: unknown) => e);
    expect(kernel).toBeInstanceOf(WasmKernelError);
    expect(kernel).toMatchObject({ kernel: "fitLinear", status: 2 });
  });

  it("fails only the task of a worker that dies, and replaces the worker", async () => {
    await expect(pool.run({ kind: "exit" })).rejects.toThrow("probe worker exited with code 3");
    expect(await pool.run({ kind: "echo", values: new Float64Array([4]) })).toEqual(new Float64Array([8]));
  });

  it("refuses a task whose signal already aborted, and any work once closed", async () => {
    const closing = createWorkerPool<ProbeTask, unknown>({ entry, size: 1, name: "closing" });
    const aborted = AbortSignal.abort(new Error("cancelled by the caller"));
    await expect(closing.run({ kind: "thread" }, { signal: aborted })).rejects.toThrow("cancelled by the caller");
    await closing.close();
    await expect(closing.run({ kind: "thread" })).rejects.toThrow("closing worker pool is closed");
  });

  it("shares the process's threads between pools, each pool running at most its size at once", async () => {
    const small = createWorkerPool<ProbeTask, unknown>({ entry, size: 1, name: "small" });
    try {
      const [big, one] = await Promise.all([
        Promise.all(Array.from({ length: 6 }, () => pool.run({ kind: "sleep", ms: 20 }))),
        Promise.all(Array.from({ length: 4 }, () => small.run({ kind: "sleep", ms: 20 }))),
      ]);
      const all = [...big, ...one] as Array<{ threadId: number }>;
      // Two threads for both pools (the largest pool's size), never one per pool.
      expect(new Set(all.map((r) => r.threadId)).size).toBeLessThanOrEqual(2);
      // The size-1 pool's tasks never overlapped one another.
      const spans = (one as Array<{ start: number; end: number }>).sort((a, b) => a.start - b.start);
      for (let i = 1; i < spans.length; i++) expect(spans[i]!.start).toBeGreaterThanOrEqual(spans[i - 1]!.end);
    } finally {
      await small.close();
    }
    // Closing one pool leaves the other's threads working.
    expect(await pool.run({ kind: "echo", values: new Float64Array([3]) })).toEqual(new Float64Array([6]));
  });

  it("reads --worker-threads: default -1 (the available cores), 0 allowed, other negatives refused", () => {
    expect(readConfig({ workerThreads: workerThreadsKey }).workerThreads).toBe(-1);
    expect(readConfig({ workerThreads: workerThreadsKey }, {}, { "worker-threads": "0" }).workerThreads).toBe(0);
    expect(() => readConfig({ workerThreads: workerThreadsKey }, { KEPLER_MODEL_WORKER_THREADS: "-2" })).toThrow(
      "KEPLER_MODEL_WORKER_THREADS: expected -1 (available cores) or 0-256, got -2",
    );
  });
});
