// Scanned Prometheus responses kept by their SHA-256 for a short while, so the calls of one pipeline run
// (ListValidFeatureGroups, then one Extract per table) scan a response once and send it once. Only
// responses a client names by digest are kept; a few, briefly, so memory stays bounded.
import type { PrometheusResponse } from "../domain/prometheus-response.js";

export interface ResponseCacheOptions {
  /** Responses kept at most; the least recently used goes first. */
  readonly capacity: number;
  /** How long a response is kept after its last use. */
  readonly keepMs: number;
  readonly now?: () => number;
}

export const RESPONSE_CACHE_DEFAULTS: ResponseCacheOptions = { capacity: 2, keepMs: 60_000 };

export class ResponseCache {
  private readonly kept = new Map<string, { response: PrometheusResponse; lastUse: number }>();
  private readonly now: () => number;

  constructor(private readonly options: ResponseCacheOptions = RESPONSE_CACHE_DEFAULTS) {
    this.now = options.now ?? Date.now;
  }

  /** The response kept under `digest` (its use renewed), or undefined. */
  get(digest: string): PrometheusResponse | undefined {
    this.dropExpired();
    const entry = this.kept.get(digest);
    if (entry === undefined) return undefined;
    // Re-inserted so the map's order stays least recently used first.
    this.kept.delete(digest);
    this.kept.set(digest, { response: entry.response, lastUse: this.now() });
    return entry.response;
  }

  put(digest: string, response: PrometheusResponse): void {
    this.dropExpired();
    this.kept.delete(digest);
    this.kept.set(digest, { response, lastUse: this.now() });
    for (const oldest of this.kept.keys()) {
      if (this.kept.size <= this.options.capacity) break;
      this.kept.delete(oldest);
    }
  }

  get size(): number {
    this.dropExpired();
    return this.kept.size;
  }

  private dropExpired(): void {
    const now = this.now();
    for (const [digest, entry] of this.kept) if (now - entry.lastUse > this.options.keepMs) this.kept.delete(digest);
  }
}
