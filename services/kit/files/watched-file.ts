import { readFileSync, statSync } from "node:fs";

/** How often a watched file is checked for changes, at most (a stat per interval, only when read). */
const FILE_CHECK_INTERVAL_MS = 1000;

/**
 * A file parsed once and re-parsed when it changes (size, mtime or inode: Kubernetes swaps a symlink
 * when a Secret changes). Checked lazily on read, at most once per interval, so there is no timer to stop.
 * A change that fails to parse keeps the previous value and is reported once through onError.
 */
export class WatchedFile<T> {
  private value: T;
  private signature: string;
  private checkedAt = 0;

  /** Reads and parses now: a missing or bad file throws, so start-up fails with the reason. */
  constructor(
    readonly path: string,
    private readonly parse: (text: string) => T,
    private readonly onError: (error: Error) => void = () => {},
    private readonly checkIntervalMs = FILE_CHECK_INTERVAL_MS,
  ) {
    this.signature = fileSignature(path);
    this.value = parse(readFileSync(path, "utf8"));
    this.checkedAt = Date.now();
  }

  /** The latest successfully parsed value. */
  current(): T {
    const now = Date.now();
    if (now - this.checkedAt < this.checkIntervalMs) return this.value;
    this.checkedAt = now;
    try {
      const signature = fileSignature(this.path);
      if (signature !== this.signature) {
        this.signature = signature;
        this.value = this.parse(readFileSync(this.path, "utf8"));
      }
    } catch (error) {
      this.onError(error as Error);
    }
    return this.value;
  }
}

function fileSignature(path: string): string {
  const stat = statSync(path);
  return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
}
