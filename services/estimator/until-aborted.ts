/**
 * Iterates `source` until it ends or `signal` aborts. An abort ends the iteration at once, even while
 * waiting for the next item, so a server-side stream handler can finish its response stream with OK
 * (e.g. on shutdown) instead of waiting for a client that never stops sending.
 */
export async function* untilAborted<T>(source: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  while (!signal.aborted) {
    // A fresh abort promise per item: racing every item against one long-lived pending promise would
    // keep a reaction (and the item it resolved with) per item alive for the life of the stream.
    let onAbort = () => {};
    const aborted = new Promise<undefined>((resolve) => {
      onAbort = () => resolve(undefined);
      signal.addEventListener("abort", onAbort, { once: true });
    });
    let next: IteratorResult<T> | undefined;
    try {
      next = await Promise.race([iterator.next(), aborted]);
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
    if (next === undefined || next.done === true) return;
    yield next.value;
  }
}
