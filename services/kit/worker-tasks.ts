// The worker side of a worker pool: answers each task message with its result or a plain error. A task
// handler is ordinary domain code; it runs on this thread's own wasm-core instance.
import { parentPort } from "node:worker_threads";

/** What the pool posts to a worker. */
export interface TaskMessage<T> {
  id: number;
  task: T;
}

/** What a worker posts back: a result (with buffers to transfer) or an error flattened to name and message. */
export type ReplyMessage<R> = { id: number; result: R } | { id: number; error: FlatError };

/** An error as it crosses threads: its class name, message and own string and number fields (e.g. InvalidInputError's field). */
export interface FlatError {
  name: string;
  message: string;
  fields: Record<string, string | number>;
}

function flatten(error: unknown): FlatError {
  if (!(error instanceof Error)) return { name: "Error", message: String(error), fields: {} };
  const fields = Object.fromEntries(
    Object.entries(error).filter(
      (entry): entry is [string, string | number] => typeof entry[1] === "string" || typeof entry[1] === "number",
    ),
  );
  return { name: error.name, message: error.message, fields };
}

/** A handler's answer: the result, plus the buffers in it that may move to the caller instead of being copied. */
export interface TaskReply<R> {
  result: R;
  transfer?: ArrayBuffer[];
}

/** Serves tasks on this worker thread until the pool terminates it. */
export function serveWorkerTasks<T, R>(handle: (task: T) => TaskReply<R> | Promise<TaskReply<R>>): void {
  const port = parentPort;
  if (port === null) throw new Error("serveWorkerTasks must run in a worker thread");
  port.on("message", async ({ id, task }: TaskMessage<T>) => {
    let reply: TaskReply<R>;
    try {
      reply = await handle(task);
    } catch (error) {
      port.postMessage({ id, error: flatten(error) } satisfies ReplyMessage<R>);
      return;
    }
    port.postMessage({ id, result: reply.result } satisfies ReplyMessage<R>, reply.transfer ?? []);
  });
}

/** Buffers that belong to their array alone (not a view into wasm memory or a shared block): safe to transfer. */
export function ownedBuffers(arrays: readonly ArrayBufferView[]): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const array of arrays) {
    const buffer = array.buffer;
    if (buffer instanceof ArrayBuffer && array.byteOffset === 0 && array.byteLength === buffer.byteLength) buffers.add(buffer);
  }
  return [...buffers];
}
