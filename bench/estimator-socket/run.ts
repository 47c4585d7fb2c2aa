// Latency of Kepler's sidecar call on the unix socket (dial, one write, one read, close), for the node
// call (1 row) and a process call (100 rows, the milliwatt re-encoding path), against a registry and
// estimator in a separate process (`kepler-model serve registry estimator --estimator-socket ...`).
//   npm run bench -- estimator-socket
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRegistryClient } from "../../services/registry/client.js";
import { keplerPowerRequest, keplerSidecarCall } from "../../test/support/kepler-sidecar-client.js";
import { ms, printTable } from "../support/measure.js";
import { importPipelineZip } from "../../test/support/import-pipeline-zip.js";
import { zipFolderTree } from "../../services/models/index.js";

const FIXTURE = new URL("../../test/fixtures/registry/ec2-fixture", import.meta.url).pathname;
const METRICS = ["bpf_cpu_time_ms", "bpf_page_cache_hit", "bpf_net_tx_irq", "bpf_net_rx_irq", "bpf_block_irq", "cpu_cycles"];
const CALLS = 500;

export default async function run(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "bench-socket-"));
  const socket = join(dir, "estimator.sock");
  const bin = new URL("../../bin/kepler-model.js", import.meta.url).pathname;
  const child = spawn(
    process.execPath,
    [bin, "serve", "registry", "estimator", "--model-path", join(dir, "models"), "--registry-port", "0"].concat([
      "--estimator-port",
      "0",
      "--estimator-socket",
      socket,
      "--log-level",
      "warn",
      "--log-format",
      "json",
    ]),
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  try {
    const registryAddress = await new Promise<string>((resolve, reject) => {
      let output = "";
      child.stdout?.on("data", (data: Buffer) => {
        output += data.toString();
        const address = /registry\s+(\S+:\d+)/.exec(output)?.[1];
        if (address !== undefined && output.includes("unix:")) resolve(address);
      });
      child.on("exit", (code) => reject(new Error(`servers exited (${code}): ${output}`)));
    });
    const registry = createRegistryClient(registryAddress);
    await importPipelineZip(registry, "ec2-fixture", await zipFolderTree(FIXTURE));
    registry.close();
    const rows: string[][] = [];
    for (const [source, count] of [
      ["intel_rapl", 1],
      ["acpi", 1],
      ["intel_rapl", 100],
    ] as const) {
      const values = Array.from({ length: count }, (_, i) => METRICS.map((_, j) => (i + 1) * (j + 1) * 13.37));
      const request = keplerPowerRequest({ metrics: METRICS, values, outputType: "AbsPower", source });
      const samples: number[] = [];
      let responseBytes = 0;
      for (let i = 0; i < CALLS + 20; i++) {
        const start = performance.now();
        const exchange = await keplerSidecarCall(socket, request);
        if (i >= 20) samples.push(performance.now() - start);
        responseBytes = exchange.firstRead.length;
      }
      samples.sort((a, b) => a - b);
      const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!;
      rows.push([source, String(count), String(request.length), String(responseBytes), ms(at(0.5)), ms(at(0.99))]);
    }
    printTable(
      `Kepler sidecar calls on the unix socket (${CALLS} sequential calls each)`,
      ["source", "rows", "request B", "response B", "p50 ms", "p99 ms"],
      rows,
    );
  } finally {
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
    await rm(dir, { recursive: true, force: true });
  }
}
