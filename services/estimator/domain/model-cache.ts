// One loaded model per query key. Concurrent first calls share one load; a refresh (a WatchModels
// event) loads the new choice in the background and swaps it in when ready, so calls in flight keep
// the model they started with and no call waits for or fails because of a reload.
import { FailedPreconditionError, NotFoundError } from "../../domain/errors.js";
import type { DomainLogger } from "../../kit/logger.js";
import { type LoadedModel, type ModelQuery, type ModelSource, queryKey } from "./loaded-model.js";

interface Entry<P> {
  query: ModelQuery;
  current?: LoadedModel<P>;
  loading?: Promise<LoadedModel<P>>;
  /** Bumped by each refresh, so an older reload finishing late cannot replace a newer one. */
  generation: number;
}

/** The estimator's model cache. */
export class ModelCache<P> {
  private readonly entries = new Map<string, Entry<P>>();

  constructor(
    private readonly source: ModelSource<P>,
    private readonly logger: DomainLogger,
  ) {}

  /** The model for a query, loading it on first use. Load failures are not cached. */
  async get(query: ModelQuery): Promise<LoadedModel<P>> {
    const key = queryKey(query);
    const entry = this.entries.get(key);
    if (entry?.current !== undefined) return entry.current;
    if (entry?.loading !== undefined) return entry.loading;
    const fresh: Entry<P> = { query, generation: 0 };
    const loading = this.source.load(query).then(
      (model) => {
        fresh.current = model;
        fresh.loading = undefined;
        return model;
      },
      (error: unknown) => {
        if (this.entries.get(key) === fresh) this.entries.delete(key);
        throw error;
      },
    );
    fresh.loading = loading;
    this.entries.set(key, fresh);
    return loading;
  }

  /**
   * Reloads, in the background, every cached query `affects` selects (all of them when omitted).
   * Resolves when the reloads are done; a reload that fails keeps the previous model, except when the
   * source now has no model for the query, in which case the entry is dropped.
   */
  async refresh(affects: (query: ModelQuery) => boolean = () => true): Promise<void> {
    const reloads: Promise<void>[] = [];
    for (const [key, entry] of this.entries) {
      if (entry.current === undefined || !affects(entry.query)) continue;
      const generation = ++entry.generation;
      reloads.push(
        this.source.load(entry.query).then(
          (model) => {
            if (entry.generation !== generation || this.entries.get(key) !== entry) return;
            this.logger.info({ from: entry.current?.modelName, to: model.modelName }, "model reloaded");
            entry.current = model;
          },
          (error: unknown) => {
            if (entry.generation !== generation) return;
            const gone = error instanceof FailedPreconditionError || error instanceof NotFoundError;
            this.logger.warn(
              { model: entry.current?.modelName, reason: (error as Error).message, dropped: gone },
              "model reload failed",
            );
            if (gone && this.entries.get(key) === entry) this.entries.delete(key);
          },
        ),
      );
    }
    await Promise.all(reloads);
  }

  /** Number of cached queries. */
  get size(): number {
    return this.entries.size;
  }
}
