/** Serialises work per key (a model, a pipeline, a table) within this process. */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `body` after every earlier body of the same key has settled. */
  async run<T>(key: string, body: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const run = previous.then(body, body);
    const settled = run.catch(() => undefined);
    this.tails.set(key, settled);
    try {
      return await run;
    } finally {
      if (this.tails.get(key) === settled) this.tails.delete(key);
    }
  }
}
