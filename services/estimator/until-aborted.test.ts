import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { untilAborted } from "./until-aborted.js";

// A source that yields `items`, then waits forever, as a collector's request stream does between ticks.
async function* sendsThenWaits(items: number[], sent: number[]): AsyncGenerator<number> {
  for (const item of items) {
    sent.push(item);
    yield item;
  }
  await new Promise(() => {});
}

describe("untilAborted", () => {
  it("passes items through, then ends while waiting for the next one when the signal aborts", async () => {
    const abort = new AbortController();
    const sent: number[] = [];
    const seen: number[] = [];
    for await (const item of untilAborted(sendsThenWaits([1, 2, 3], sent), abort.signal)) {
      seen.push(item);
      if (item === 3) setTimeout(() => abort.abort(), 10);
    }
    expect(seen).toEqual([1, 2, 3]);
    expect(sent).toEqual([1, 2, 3]);
  });

  it("yields nothing when already aborted, and ends with its source otherwise", async () => {
    const aborted = AbortSignal.abort();
    const none: number[] = [];
    for await (const item of untilAborted(sendsThenWaits([1], []), aborted)) none.push(item);
    expect(none).toEqual([]);

    const all: number[] = [];
    async function* finite() {
      yield* [4, 5];
    }
    for await (const item of untilAborted(finite(), new AbortController().signal)) all.push(item);
    expect(all).toEqual([4, 5]);
  });

  it("stops listening to the signal when the iteration ends", async () => {
    const abort = new AbortController();
    let listeners = 0;
    const add = abort.signal.addEventListener.bind(abort.signal);
    const remove = abort.signal.removeEventListener.bind(abort.signal);
    abort.signal.addEventListener = ((...args: Parameters<typeof add>) => {
      listeners++;
      add(...args);
    }) as typeof add;
    abort.signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
      listeners--;
      remove(...args);
    }) as typeof remove;
    async function* finite() {
      yield 1;
    }
    for (let i = 0; i < 3; i++) for await (const _ of untilAborted(finite(), abort.signal));
    expect(listeners).toBe(0);
  });

  it("keeps no consumed item alive while the stream stays open (a soak leaked every item before)", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const refs: Array<WeakRef<object>> = [];
    async function* items(): AsyncGenerator<object> {
      for (let i = 0; i < 100; i++) {
        const item = { payload: new Uint8Array(1024) };
        refs.push(new WeakRef(item));
        yield item;
      }
      await new Promise(() => {});
    }
    const abort = new AbortController();
    const iterator = untilAborted(items(), abort.signal)[Symbol.asyncIterator]();
    for (let i = 0; i < 100; i++) await iterator.next();
    const pending = iterator.next(); // waiting for an item that never comes, as between collector ticks
    for (let round = 0; round < 3; round++) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      gc();
    }
    expect(refs.slice(0, 99).filter((ref) => ref.deref() !== undefined).length).toBe(0);
    abort.abort();
    expect(await pending).toEqual({ done: true, value: undefined });
  });
});
