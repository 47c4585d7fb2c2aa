// The synthetic Kepler recording of the extractor and scale benchmarks, written as saved-response JSON
// (`{metric: [{metric, values}]}`) one series at a time, so recordings larger than a V8 string (16x the
// 200 x 1,200 base is ~500 MB) can be produced without building them in memory.
import { createWriteStream } from "node:fs";
import { once } from "node:events";

export interface SyntheticShape {
  readonly containers: number;
  readonly samples: number;
}

export const BASE_SHAPE: SyntheticShape = { containers: 200, samples: 1_200 };
export const SYNTHETIC_FEATURES = [
  "cache_miss",
  "cpu_cycles",
  "cpu_instructions",
  "bpf_cpu_time_ms",
  "bpf_page_cache_hit",
  "bpf_block_irq",
  "bpf_net_rx_irq",
  "bpf_net_tx_irq",
] as const;
const STEP_SECONDS = 3;
const START = 1_700_000_000;

// Deterministic pseudo-random increments (a linear congruential generator), no Math.random.
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function seriesText(labels: Record<string, string>, scale: number, samples: number, random: () => number): string {
  const values: string[] = [];
  let value = Math.floor(random() * scale * 100);
  for (let i = 0; i < samples; i++) {
    value += Math.floor(random() * scale);
    values.push(`[${START + i * STEP_SECONDS},"${value}"]`);
  }
  return `{"metric":${JSON.stringify(labels)},"values":[${values.join(",")}]}`;
}

/** The recording as text pieces in order: joined they are one saved-response JSON document. */
export function* syntheticResponsePieces(shape: SyntheticShape): Generator<string> {
  const random = generator(42);
  const metric = function* (name: string, series: Iterable<[Record<string, string>, number]>, first: boolean) {
    yield `${first ? "{" : ","}${JSON.stringify(name)}:[`;
    let index = 0;
    for (const [labels, scale] of series)
      yield (index++ === 0 ? "" : ",") + seriesText({ __name__: name, ...labels }, scale, shape.samples, random);
    yield "]";
  };
  let first = true;
  for (const [index, feature] of SYNTHETIC_FEATURES.entries()) {
    const containers = function* (): Generator<[Record<string, string>, number]> {
      for (let c = 0; c < shape.containers; c++) {
        const labels = {
          container_id: `c${String(c).padStart(6, "0")}`,
          pod_name: `pod-${c}`,
          container_name: `app-${c % 17}`,
          container_namespace: `ns-${c % 5}`,
          job: "kepler",
          instance: "node-1",
        };
        yield [labels, 10 ** (index % 6)];
      }
    };
    yield* metric(`kepler_container_${feature}_total`, containers(), first);
    first = false;
  }
  for (const component of ["package", "core", "uncore", "dram"]) {
    const series = ["0", "1"].flatMap((pkg) =>
      ["idle", "dynamic"].map((mode): [Record<string, string>, number] => [{ source: "rapl-sysfs", package: pkg, mode }, 200]),
    );
    yield* metric(`kepler_node_${component}_joules_total`, series, false);
  }
  const platform = ["idle", "dynamic"].map((mode): [Record<string, string>, number] => [{ source: "acpi", mode }, 600]);
  yield* metric("kepler_node_platform_joules_total", platform, false);
  yield* metric("kepler_node_accelerator_intel_qat", [[{ type: "qat0" }, 5]], false);
  yield "}";
}

/** Writes the recording to `path` piece by piece; returns its size in bytes. */
export async function writeSyntheticResponse(path: string, shape: SyntheticShape): Promise<number> {
  const out = createWriteStream(path);
  let bytes = 0;
  for (const piece of syntheticResponsePieces(shape)) {
    bytes += Buffer.byteLength(piece);
    if (!out.write(piece)) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
  return bytes;
}
