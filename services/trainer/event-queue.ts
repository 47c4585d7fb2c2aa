// Bridges callbacks (the domain's progress and result events) to an async iterable a server-streaming
// RPC can yield from, in order, ending or failing once.

/** A push/pull queue: push() from callbacks, iterate with for-await until end() or fail(). */
export interface EventQueue<T> extends AsyncIterable<T> {
  push(item: T): void;
  end(): void;
  fail(error: unknown): void;
}

/** Creates an unbounded in-order queue (training emits a few events per trainer and component). */
export function createEventQueue<T>(): EventQueue<T> {
  const items: T[] = [];
  let finished = false;
  let failure: { error: unknown } | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  return {
    push(item) {
      if (finished) return;
      items.push(item);
      notify();
    },
    end() {
      finished = true;
      notify();
    },
    fail(error) {
      failure = { error };
      finished = true;
      notify();
    },
    async *[Symbol.asyncIterator]() {
      while (true) {
        const item = items.shift();
        if (item !== undefined) {
          yield item;
          continue;
        }
        if (failure !== undefined) throw failure.error;
        if (finished) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    },
  };
}
