import { core } from "./module.js";

// Mirrored from wasm-core/assembly/json-samples.ts.
const SAMPLES_UNSUPPORTED = -1;
const SAMPLES_NEED_CAPACITY = -2;
const SAMPLES_TRUNCATED = -3;
/** Bytes copied into wasm memory at a time: a list longer than this is copied whole when it comes. */
const MIRROR_BYTES = 256 * 1024;
const FIRST_CAPACITY = 1024;

/** One values list, decoded: copies in JavaScript memory. */
export interface DecodedSamples {
  timestamps: Float64Array;
  values: Float64Array;
  /**
   * Value strings not in the plain form ("NaN", "+Inf", 17 digits, ...), left to the caller: triples of
   * sample index, first byte and end byte in the source; their values are NaN until the caller sets them.
   */
  otherValues: Int32Array;
  /** Offset in the source bytes just past the list's closing bracket. */
  end: number;
}

/**
 * Decodes the `[[timestamp, "value"], ...]` lists of a saved Prometheus response straight from its JSON
 * bytes (kernel decodeSamples). The bytes are copied into wasm memory a window at a time, so a response of
 * any size needs only about a window plus the longest list there. Lists not in the plain form (see the
 * kernel) are the caller's to read. Holds wasm memory until release().
 */
export class SampleListDecoder {
  private source: Uint8Array = new Uint8Array(0);
  // The mirror: source[mirrorFrom, mirrorFrom + mirrorLength) at mirrorPtr (room for mirrorRoom bytes).
  private mirrorPtr = 0;
  private mirrorRoom = 0;
  private mirrorFrom = -1;
  private mirrorLength = 0;
  // The end offset and the count of other values the kernel writes, then `capacity` timestamps, values
  // and other-value triples.
  private outPtr = 0;
  private capacity = 0;

  /** Reads lists from `bytes` from now on (offsets given to decode() index into it). */
  setSource(bytes: Uint8Array): void {
    this.source = bytes;
    this.mirrorFrom = -1;
  }

  /**
   * The list whose `[` is at `start`; "unsupported" when it is not in the plain form, "incomplete" when the
   * source ends before the list does (as far as it was read).
   */
  decode(start: number): DecodedSamples | "unsupported" | "incomplete" {
    const wasm = core();
    if (this.capacity === 0) this.reserveOutput(FIRST_CAPACITY);
    for (;;) {
      if (!this.mirrors(start)) this.mirror(start, MIRROR_BYTES);
      const timestampsPtr = this.outPtr + 8;
      const valuesPtr = timestampsPtr + this.capacity * 8;
      const othersPtr = valuesPtr + this.capacity * 8;
      const status = wasm.decodeSamples(
        this.mirrorPtr,
        this.mirrorLength,
        start - this.mirrorFrom,
        timestampsPtr,
        valuesPtr,
        othersPtr,
        this.capacity,
        this.outPtr,
      );
      if (status >= 0) {
        const memory = wasm.memory.buffer;
        const [end, others] = new Int32Array(memory, this.outPtr, 2);
        const otherValues = new Int32Array(memory, othersPtr, 3 * others!).slice();
        // Byte offsets in the mirror -> in the source.
        for (let k = 0; k < otherValues.length; k += 3) {
          otherValues[k + 1] = otherValues[k + 1]! + this.mirrorFrom;
          otherValues[k + 2] = otherValues[k + 2]! + this.mirrorFrom;
        }
        return {
          timestamps: new Float64Array(memory, timestampsPtr, status).slice(),
          values: new Float64Array(memory, valuesPtr, status).slice(),
          otherValues,
          end: end! + this.mirrorFrom,
        };
      }
      if (status === SAMPLES_NEED_CAPACITY) {
        this.reserveOutput(this.capacity * 2);
        continue;
      }
      if (status === SAMPLES_UNSUPPORTED) return "unsupported";
      if (status !== SAMPLES_TRUNCATED) throw new Error(`decodeSamples: unexpected status ${status}`);
      // The list runs past the mirror: mirror it whole (twice the window) and retry.
      const mirrorEnd = this.mirrorFrom + this.mirrorLength;
      if (mirrorEnd >= this.source.length) return "incomplete";
      this.mirror(start, Math.max(MIRROR_BYTES, 2 * (mirrorEnd - start)));
    }
  }

  /** Frees the wasm memory (decode() allocates again if called later). */
  release(): void {
    const wasm = this.mirrorPtr !== 0 || this.outPtr !== 0 ? core() : undefined;
    if (this.mirrorPtr !== 0) wasm!.freeBytes(this.mirrorPtr);
    if (this.outPtr !== 0) wasm!.freeBytes(this.outPtr);
    this.mirrorPtr = this.mirrorRoom = this.outPtr = this.capacity = this.mirrorLength = 0;
    this.mirrorFrom = -1;
  }

  private mirrors(start: number): boolean {
    return this.mirrorFrom >= 0 && start >= this.mirrorFrom && start < this.mirrorFrom + this.mirrorLength;
  }

  private mirror(start: number, bytes: number): void {
    const length = Math.min(bytes, this.source.length - start);
    if (length > this.mirrorRoom) {
      const wasm = core();
      if (this.mirrorPtr !== 0) wasm.freeBytes(this.mirrorPtr);
      this.mirrorRoom = Math.max(length, MIRROR_BYTES);
      this.mirrorPtr = wasm.allocBytes(this.mirrorRoom);
    }
    new Uint8Array(core().memory.buffer, this.mirrorPtr, length).set(this.source.subarray(start, start + length));
    this.mirrorFrom = start;
    this.mirrorLength = length;
  }

  private reserveOutput(capacity: number): void {
    const wasm = core();
    if (this.outPtr !== 0) wasm.freeBytes(this.outPtr);
    this.outPtr = wasm.allocBytes(8 + capacity * 28);
    this.capacity = capacity;
  }
}
