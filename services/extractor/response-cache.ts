// Scanned Prometheus responses kept by their SHA-256 for a short while, so the calls of one pipeline run
// (ListValidFeatureGroups, then one Extract per table) scan a response once and send it once. Only
// responses a client names by digest are kept; a few, briefly, and none over a size (a larger one is sent
// and scanned per call, as without a digest), so memory stays bounded.
import type { PrometheusResponse } from "../domain/prometheus-response.js";

export interface ResponseCacheOptions {
  /** Responses kept at most; the least recently used goes first. */
  readonly capacity: number;
  /** How long a response is kept after its last use. */
  readonly keepMs: number;
  /** Responses with more samples (timestamps and values: 16 bytes each) are not kept. */
  readonly maxSamples: number;
  readonly now?: () => number;
}

export const RESPONSE_CACHE_DEFAULTS: ResponseCacheOptions = { capacity: 2, keepMs: 60_000, maxSamples: 16_000_000 };

function samplesOf(response: PrometheusResponse): number {
  let samples = 0;
  for (const metric of response.metrics.values()) samples += metric.timestamps.length;
  return samples;
}

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

  /** Keeps `response` under `digest`, unless it is larger than maxSamples. */
  put(digest: string, response: PrometheusResponse): void {
    this.dropExpired();
    if (samplesOf(response) > this.options.maxSamples) return;
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
