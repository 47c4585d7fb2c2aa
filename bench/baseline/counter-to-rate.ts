// Plain-TypeScript twin of wasm-core's counterToRate kernel, kept ONLY as a benchmark baseline
// (services never use it: all numeric work runs in wasm-core). Same semantics: per-row step,
// a decrease is a reset to zero (Prometheus), element 0 is NaN.
export function counterToRateBaseline(timestamps: Float64Array, values: Float64Array, out: Float64Array): void {
  const n = values.length;
  if (n === 0) return;
  out[0] = Number.NaN;
  for (let i = 1; i < n; i++) {
    const dt = timestamps[i]! - timestamps[i - 1]!;
    const previous = values[i - 1]!;
    const current = values[i]!;
    out[i] = dt > 0 ? (current >= previous ? current - previous : current) / dt : Number.NaN;
  }
}
