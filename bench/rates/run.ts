// Counter-to-rate: wasm-core's kernel against its plain-TS twin, on data already resident in
// wasm memory (the way the extractor uses it) and through the copying convenience call.
import { F64Buffer, counterToRate, counterToRateInWasm } from "../../wasm-core/src/index.js";
import { counterToRateBaseline } from "../baseline/counter-to-rate.js";
import { measure, ms, printTable } from "../support/measure.js";

function syntheticCounter(n: number): { timestamps: Float64Array; values: Float64Array } {
  const timestamps = new Float64Array(n);
  const values = new Float64Array(n);
  let t = 1_700_000_000;
  let v = 0;
  for (let i = 0; i < n; i++) {
    t += 3 + (i % 7 === 0 ? 1 : 0); // mostly 3 s, some 4 s steps
    v = i % 5000 === 4999 ? 0 : v + 1000 + (i % 13); // a reset every 5000 samples
    timestamps[i] = t;
    values[i] = v;
  }
  return { timestamps, values };
}

export default async function run(): Promise<void> {
  const rows: string[][] = [];
  for (const n of [10_000, 1_000_000]) {
    const { timestamps, values } = syntheticCounter(n);
    const out = new Float64Array(n);
    const baseline = await measure(() => counterToRateBaseline(timestamps, values, out), 15);
    const t = F64Buffer.from(timestamps);
    const v = F64Buffer.from(values);
    const o = F64Buffer.alloc(n);
    const resident = await measure(() => counterToRateInWasm(t, v, o), 15);
    const copying = await measure(() => counterToRate(timestamps, values), 15);
    for (const buffer of [t, v, o]) buffer.free();
    rows.push([
      String(n),
      ms(baseline.medianMs),
      ms(resident.medianMs),
      ms(copying.medianMs),
      (baseline.medianMs / resident.medianMs).toFixed(2),
    ]);
  }
  printTable(
    "counterToRate, median ms (15 runs)",
    ["samples", "plain TS", "wasm (resident)", "wasm (copy in/out)", "TS / wasm resident"],
    rows,
  );
}
