// One loaded model per query key, at most `maxEntries` of them (least recently used evicted first).
// Concurrent first calls share one load. A refresh (a WatchModels event) only marks the affected
// entries stale: the next call for a stale entry still gets the model it had, and starts one
// background reload that swaps the new choice in when ready. So a publish costs no load at all up
// front and at most one reload per cached entry that is used again, however many entries are cached
// (it used to reload every cached query at once: 20,000 queries, 60,003 registry calls, 65 s).
import { FailedPreconditionError, NotFoundError } from "../../domain/errors.js";
import type { DomainLogger } from "../../kit/observe/logger.js";
import { type LoadedModel, type ModelQuery, type ModelSource, queryKey, sameQuery } from "./loaded-model.js";

interface Entry<P> {
  query: ModelQuery;
  current?: LoadedModel<P>;
  loading?: Promise<LoadedModel<P>>;
  /** Set by a refresh; cleared when a reload started after that refresh finishes. */
  stale: boolean;
  reloading?: Promise<void>;
  /** Bumped by each refresh, so a reload that started before the latest refresh leaves the entry stale. */
  generation: number;
}

/** Told of every lookup by its result (the service counts them in its metrics). */
export interface ModelCacheObserver {
  /** A loaded model was returned. */
  hit(): void;
  /** The model was not loaded: a load started. */
  miss(): void;
  /** A publish made the entry stale: a background reload started. */
  reload(): void;
}

/** Options of the cache. */
export interface ModelCacheOptions {
  /** Most cached queries (default DEFAULT_MODEL_CACHE_ENTRIES). */
  maxEntries?: number;
  observer?: ModelCacheObserver;
}

const UNOBSERVED: ModelCacheObserver = { hit() {}, miss() {}, reload() {} };

/** Default bound of the estimator's model cache. */
export const DEFAULT_MODEL_CACHE_ENTRIES = 256;

/** The estimator's model cache. */
export class ModelCache<P> {
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  private readonly entries = new Map<string, Entry<P>>();
  /** The key of the last entry in `entries` (the most recently used) when known. */
  private lastHit: string | undefined;
  private lastQuery: { query: ModelQuery; key: string } | undefined;
  private readonly maxEntries: number;
  private readonly observer: ModelCacheObserver;

  constructor(
    private readonly source: ModelSource<P>,
    private readonly logger: DomainLogger,
    options: ModelCacheOptions = {},
  ) {
    this.maxEntries = Math.max(1, options.maxEntries ?? DEFAULT_MODEL_CACHE_ENTRIES);
    this.observer = options.observer ?? UNOBSERVED;
  }

  /**
   * The model for a query when it is loaded already (a stale one starts its reload and keeps serving
   * meanwhile), else undefined: the estimate can then be answered without waiting.
   */
  cached(query: ModelQuery): LoadedModel<P> | undefined {
    return this.hit(this.keyOf(query));
  }

  // The key of the query before is kept: a collector asks the same query on every tick, and comparing it
  // costs a fraction of building its key.
  private keyOf(query: ModelQuery): string {
    const last = this.lastQuery;
    if (last !== undefined && sameQuery(last.query, query)) return last.key;
    const key = queryKey(query);
    // A copy: the caller's lists may be reused for its next query.
    const kept: ModelQuery = {
      ...query,
      featureNames: [...query.featureNames],
      unavailableFeatureNames: [...query.unavailableFeatureNames],
      machineSpec: { ...query.machineSpec },
    };
    this.lastQuery = { query: kept, key };
    return key;
  }

  /** The model for a query, loading it on first use. Load failures are not cached. */
  async get(query: ModelQuery): Promise<LoadedModel<P>> {
    const key = this.keyOf(query);
    const current = this.hit(key);
    if (current !== undefined) return current;
    const entry = this.entries.get(key);
    if (entry?.loading !== undefined) return entry.loading;
    this.observer.miss();
    const fresh: Entry<P> = { query, stale: false, generation: 0 };
    const loading = this.source.load(query).then(
      (model) => {
        fresh.current = model;
        fresh.loading = undefined;
        // Which model serves this query and why (node type matched, held-out MAE), once per load.
        this.logger.info({ model: model.modelName, reason: model.selectionReason }, "model loaded");
        return model;
      },
      (error: unknown) => {
        if (this.entries.get(key) === fresh) this.entries.delete(key);
        throw error;
      },
    );
    fresh.loading = loading;
    this.entries.set(key, fresh);
    this.lastHit = key;
    this.evict();
    return loading;
  }

  private hit(key: string): LoadedModel<P> | undefined {
    const entry = this.entries.get(key);
    if (entry?.current === undefined) return undefined;
    // Least recently used first: a hit moves the entry to the end (unless it is there already, the usual
    // case of one model serving many estimates in a row).
    if (this.lastHit !== key) {
      this.entries.delete(key);
      this.entries.set(key, entry);
      this.lastHit = key;
    }
    if (entry.stale && entry.reloading === undefined) {
      this.observer.reload();
      this.reload(key, entry);
    }
    this.observer.hit();
    return entry.current;
  }

  private evict(): void {
    for (const key of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) return;
      this.entries.delete(key);
    }
  }

  // One background reload of a stale entry; the old model keeps serving until it is done. A reload
  // that fails keeps the old model, except when the source has no model for the query any more.
  private reload(key: string, entry: Entry<P>): void {
    const generation = entry.generation;
    entry.reloading = this.source.load(entry.query).then(
      (model) => {
        entry.reloading = undefined;
        if (this.entries.get(key) !== entry) return;
        if (entry.current?.modelName !== model.modelName)
          this.logger.info(
            { from: entry.current?.modelName, to: model.modelName, reason: model.selectionReason },
            "model reloaded",
          );
        entry.current = model;
        if (entry.generation === generation) entry.stale = false;
      },
      (error: unknown) => {
        entry.reloading = undefined;
        const gone = error instanceof FailedPreconditionError || error instanceof NotFoundError;
        this.logger.warn(
          { model: entry.current?.modelName, reason: (error as Error).message, dropped: gone },
          "model reload failed",
        );
        if (gone && this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
  }

  /**
   * Marks every cached query `affects` selects (all of them when omitted) stale, to be reloaded on its
   * next use. Returns how many were marked.
   */
  refresh(affects: (query: ModelQuery) => boolean = () => true): number {
    let marked = 0;
    for (const entry of this.entries.values()) {
      if (entry.current === undefined || !affects(entry.query)) continue;
      entry.stale = true;
      entry.generation++;
      marked++;
    }
    return marked;
  }

  /** Resolves when the background reloads started so far are done (tests, shutdown). */
  async settled(): Promise<void> {
    await Promise.all([...this.entries.values()].map((entry) => entry.reloading));
  }

  /** Number of cached queries. */
  get size(): number {
    return this.entries.size;
  }
}
