// POST /model (Kepler's regressor request) over HTTP/1.1 against SelectModel over gRPC, both on the
// registry's one port, with the ec2 fixture imported: per-call latency, sequential, keep-alive
// connections. The registry runs in this process (client and server share the event loop).
//   npm run bench -- registry-http
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OutputType } from "../../services/generated/kepler/model/v1/types.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { startRegistry } from "../../services/registry/main.js";
import { measure, ms, printTable } from "../support/measure.js";
import { importPipelineZip } from "../../test/support/import-pipeline-zip.js";
import { zipFolderTree } from "../../services/models/index.js";

const FIXTURE = new URL("../../test/fixtures/registry/ec2-fixture", import.meta.url).pathname;
const KEPLER_BODY = JSON.stringify({
  metrics: ["bpf_cpu_time_ms", "bpf_page_cache_hit", "bpf_net_tx_irq", "bpf_net_rx_irq", "bpf_block_irq", "cpu_cycles"],
  output_type: "AbsPower",
  source: "intel_rapl",
  node_type: 0,
  weight: true,
  trainer_name: "SGDRegressorTrainer",
  filter: "",
  machine_spec: {
    vendor: "authenticamd",
    processor: "amd_epyc",
    cores: 2,
    chips: 1,
    memory: 23,
    frequency: 2600,
    threads_per_core: 1,
  },
});

export default async function run(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "bench-registry-http-"));
  const handle = await startRegistry(
    { host: "127.0.0.1", port: 0, modelPath: dir, rescanIntervalMs: 0, sourcePipelines: [] },
    { logger: silentLogger() },
  );
  const registry = createRegistryClient(handle.address);
  try {
    await importPipelineZip(registry, "ec2-fixture", await zipFolderTree(FIXTURE));
    const cases: Array<[string, () => Promise<unknown>]> = [
      [
        "HTTP POST /model weight=true",
        async () => (await fetch(`http://${handle.address}/model`, { method: "POST", body: KEPLER_BODY })).json(),
      ],
      [
        "HTTP POST /model weight=false (zip)",
        async () =>
          (
            await fetch(`http://${handle.address}/model`, {
              method: "POST",
              body: KEPLER_BODY.replace('"weight":true', '"weight":false'),
            })
          ).arrayBuffer(),
      ],
      [
        "gRPC SelectModel weight=true",
        () =>
          registry.client.selectModel({
            featureNames: ["bpf_cpu_time_ms", "bpf_page_cache_hit"],
            outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
            energySource: "intel_rapl",
            trainerName: "SGDRegressorTrainer",
            weight: true,
          }),
      ],
      ["HTTP GET /best-models", async () => (await fetch(`http://${handle.address}/best-models`)).json()],
    ];
    const rows: string[][] = [];
    for (const [name, body] of cases) {
      const timing = await measure(body, 300, 50);
      rows.push([name, ms(timing.medianMs), ms(timing.minMs)]);
    }
    printTable("registry port: HTTP/1.1 and gRPC, sequential calls", ["case", "median ms", "min ms"], rows);
  } finally {
    registry.close();
    await handle.close();
    await rm(dir, { recursive: true, force: true });
  }
}
