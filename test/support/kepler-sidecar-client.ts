// Kepler 0.7.12-0.9's sidecar client, reproduced for tests from its wire description (kepler-collector
// §1.1, pkg/model/estimator/sidecar/estimate.go): dial, one write of the JSON, ONE read into a 4096-byte
// buffer, decode, close. It also records everything the server sent, so a test can tell whether that
// single read would have seen the whole response.
import { connect } from "node:net";

/** Kepler 0.7.12's node feature list, in the order it sends them (sidecar and regressor alike). */
export const KEPLER_0712_METRICS = [
  "bpf_cpu_time_ms",
  "bpf_page_cache_hit",
  "bpf_net_tx_irq",
  "bpf_net_rx_irq",
  "bpf_block_irq",
  "cpu_cycles",
  "cpu_instructions",
  "cache_miss",
] as const;

/** Go's `buf := make([]byte, 4096)`. */
export const KEPLER_READ_BYTES = 4096;

export interface SidecarExchange {
  /** What Kepler's single conn.Read returns (at most 4096 bytes of the first chunk), as text. */
  firstRead: string;
  /** Everything the server wrote before closing. */
  allBytes: string;
}

/** Writes `request` (text, or chunks written with `pauseMs` between them) and collects the reply. */
export function keplerSidecarCall(path: string, request: string | string[], pauseMs = 20): Promise<SidecarExchange> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    const chunks: Buffer[] = [];
    let first: Buffer | undefined;
    socket.on("data", (chunk: Buffer) => {
      first ??= chunk.subarray(0, KEPLER_READ_BYTES);
      chunks.push(chunk);
    });
    socket.on("error", reject);
    socket.on("close", () =>
      resolve({ firstRead: first?.toString("utf8") ?? "", allBytes: Buffer.concat(chunks).toString("utf8") }),
    );
    socket.on("connect", async () => {
      if (typeof request === "string") {
        socket.write(request);
        return;
      }
      for (const [i, piece] of request.entries()) {
        if (i > 0) await new Promise((done) => setTimeout(done, pauseMs));
        socket.write(piece);
      }
    });
  });
}

/** Kepler's PowerRequest JSON as Go's json.Marshal writes it (field order of the struct, no spaces). */
export function keplerPowerRequest(fields: {
  metrics: string[];
  values: number[][];
  outputType: "AbsPower" | "DynPower";
  source: string;
  systemValues?: string[];
}): string {
  return JSON.stringify({
    metrics: fields.metrics,
    values: fields.values,
    output_type: fields.outputType,
    source: fields.source,
    system_features: ["cpu_architecture"],
    system_values: fields.systemValues ?? ["unknown"],
    trainer_name: "",
    filter: "",
  });
}

/** Kepler's milliwatts from a decoded power list: uint64(watts * 1000 * coreRatio) (utils.GetComponentPower). */
export function keplerMilliwatts(watts: readonly number[], coreRatio = 1): number[] {
  return watts.map((w) => Math.trunc(w * 1000 * coreRatio));
}
