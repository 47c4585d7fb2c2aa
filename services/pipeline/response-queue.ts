// Turns the run's callbacks (progress, results) and its final promise into the ordered async iterable a
// server-streaming RPC yields from.

/** Yields what `run` pushes, in order, then the value it resolves to; fails where `run` rejects. */
export async function* streamWhile<T>(run: (push: (item: T) => void) => Promise<T>): AsyncGenerator<T> {
  const items: T[] = [];
  let wake: (() => void) | undefined;
  let outcome: { ok: true } | { ok: false; error: unknown } | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  run((item) => {
    items.push(item);
    notify();
  }).then(
    (last) => {
      items.push(last);
      outcome = { ok: true };
      notify();
    },
    (error: unknown) => {
      outcome = { ok: false, error };
      notify();
    },
  );
  while (true) {
    const item = items.shift();
    if (item !== undefined) {
      yield item;
      continue;
    }
    if (outcome !== undefined) {
      if (!outcome.ok) throw outcome.error;
      return;
    }
    await new Promise<void>((resolve) => {
      wake = resolve;
    });
  }
}
