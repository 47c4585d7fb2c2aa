// The worker side of the worker pools: answers each task message with its result or a plain error. A task
// handler is ordinary domain code, the default export of its task module; it runs on this thread's own
// wasm-core instance.
import { parentPort } from "node:worker_threads";

/** What the pool posts to a worker: the task module to run it with (its URL) and the task. */
export interface TaskMessage<T> {
  id: number;
  entry: string;
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

/** What a task module exports as its default: runs one task of its kind. */
export type TaskHandler<T, R> = (task: T) => TaskReply<R> | Promise<TaskReply<R>>;

/** Declares a task module's handler (its default export), typed by task and result. */
export function taskHandler<T, R>(handle: TaskHandler<T, R>): TaskHandler<T, R> {
  return handle;
}

/**
 * Serves tasks on this worker thread until the pool terminates it. The threads are shared by every pool of
 * the process: each message names its task module, imported on the first task that needs it.
 */
export function serveTaskModules(): void {
  const port = parentPort;
  if (port === null) throw new Error("serveTaskModules must run in a worker thread");
  const handlers = new Map<string, Promise<TaskHandler<unknown, unknown>>>();
  const handlerOf = (entry: string) => {
    let handler = handlers.get(entry);
    if (handler === undefined) {
      handler = import(entry).then((module: { default?: TaskHandler<unknown, unknown> }) => {
        if (typeof module.default !== "function") throw new Error(`${entry} exports no task handler as its default`);
        return module.default;
      });
      handlers.set(entry, handler);
    }
    return handler;
  };
  port.on("message", async ({ id, entry, task }: TaskMessage<unknown>) => {
    let reply: TaskReply<unknown>;
    try {
      reply = await (await handlerOf(entry))(task);
    } catch (error) {
      port.postMessage({ id, error: flatten(error) } satisfies ReplyMessage<unknown>);
      return;
    }
    port.postMessage({ id, result: reply.result } satisfies ReplyMessage<unknown>, reply.transfer ?? []);
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
