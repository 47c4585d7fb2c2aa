// Publish, import and removal events for WatchModels subscribers (the estimator's cache).
import type { StoredModel } from "./stored-model.js";

/** What happened to a model. */
export type ModelEventKind = "published" | "imported" | "removed";

/** One event; `sequence` increases by one per event of this process. */
export interface ModelEvent {
  kind: ModelEventKind;
  model: StoredModel;
  eventTimeSeconds: number;
  sequence: number;
}

type Listener = (event: ModelEvent) => void;

/** Fans events out to subscribers, synchronously and in order. */
export class ModelEventHub {
  private sequence = 0;

  /** The sequence number of the last event sent (0 before the first). */
  get currentSequence(): number {
    return this.sequence;
  }
  private readonly listeners = new Set<Listener>();
  private readonly closers = new Set<() => void>();

  /** Sends an event to every subscriber. */
  emit(kind: ModelEventKind, model: StoredModel, eventTimeSeconds: number): ModelEvent {
    const event: ModelEvent = { kind, model, eventTimeSeconds, sequence: ++this.sequence };
    for (const listener of this.listeners) listener(event);
    return event;
  }

  /**
   * Subscribes; `onClose` runs when the hub closes (server shutdown), so long-lived streams can end.
   * Returns the unsubscribe function.
   */
  subscribe(listener: Listener, onClose: () => void = () => {}): () => void {
    this.listeners.add(listener);
    this.closers.add(onClose);
    return () => {
      this.listeners.delete(listener);
      this.closers.delete(onClose);
    };
  }

  /** Ends every subscription. */
  close(): void {
    for (const close of [...this.closers]) close();
    this.listeners.clear();
    this.closers.clear();
  }
}

/**
 * Subscribes now and returns an async iterator over the hub's events from this moment, ending when
 * `signal` aborts or the hub closes. Events are queued, so a slow consumer misses none.
 */
export function watchModelEvents(hub: ModelEventHub, signal: AbortSignal): AsyncGenerator<ModelEvent> {
  const queue: ModelEvent[] = [];
  let wake: (() => void) | undefined;
  let done = false;
  const finish = () => {
    done = true;
    wake?.();
  };
  const unsubscribe = hub.subscribe((event) => {
    queue.push(event);
    wake?.();
  }, finish);
  signal.addEventListener("abort", finish, { once: true });
  return (async function* () {
    try {
      while (true) {
        while (queue.length > 0) yield queue.shift() as ModelEvent;
        if (done || signal.aborted) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
    } finally {
      unsubscribe();
      signal.removeEventListener("abort", finish);
    }
  })();
}
