/**
 * Iterates `source` until it ends or `signal` aborts. An abort ends the iteration at once, even while
 * waiting for the next item, so a server-side stream handler can finish its response stream with OK
 * (e.g. on shutdown) instead of waiting for a client that never stops sending.
 */
export async function* untilAborted<T>(source: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T> {
  if (signal.aborted) return;
  const iterator = source[Symbol.asyncIterator]();
  let onAbort = () => {};
  const aborted = new Promise<undefined>((resolve) => {
    onAbort = () => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    while (!signal.aborted) {
      const next = await Promise.race([iterator.next(), aborted]);
      if (next === undefined || next.done === true) return;
      yield next.value;
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}
