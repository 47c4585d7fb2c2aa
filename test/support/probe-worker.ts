// A worker entry for the pool's own tests: echoes, throws domain errors, or dies, on request.
import { InvalidInputError } from "../../services/domain/errors.js";
import { WasmKernelError } from "../../wasm-core/src/index.js";
import { taskHandler } from "../../services/kit/workers/worker-tasks.js";

export type ProbeTask =
  | { kind: "echo"; values: Float64Array }
  | { kind: "invalid"; field: string }
  | { kind: "exit" }
  | { kind: "thread" }
  | { kind: "sleep"; ms: number }
  | { kind: "priority" }
  | { kind: "kernel" };

export default taskHandler<ProbeTask, unknown>(async (task) => {
  switch (task.kind) {
    case "echo":
      return { result: task.values.map((v) => v * 2) };
    case "invalid":
      throw new InvalidInputError(task.field, "rejected in the worker");
    case "exit":
      return process.exit(3);
    case "kernel":
      throw new WasmKernelError("fitLinear", 2);
    case "priority": {
      const { getPriority } = await import("node:os");
      return { result: getPriority() };
    }
    case "sleep": {
      const { threadId } = await import("node:worker_threads");
      const start = performance.timeOrigin + performance.now();
      await new Promise((resolve) => setTimeout(resolve, task.ms));
      return { result: { threadId, start, end: performance.timeOrigin + performance.now() } };
    }
    case "thread": {
      const { threadId } = await import("node:worker_threads");
      return { result: threadId };
    }
  }
});
