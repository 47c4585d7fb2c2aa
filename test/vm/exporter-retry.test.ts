// `kepler-model exporter` started before its node exporter (a DaemonSet's pods start in any order) waits
// for it, logging that it retries, instead of exiting; once the node exporter answers it serves power.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { RunningChild } from "../support/child-process.js";
import { spawnExporter } from "./support/exporter-process.js";
import { writeVmModel } from "./support/modelled-vm.js";
import { MODEL_A, scratchFolder } from "./support/tree-scenario.js";

const dir = scratchFolder("exporter-retry-");
let exporter: RunningChild | undefined;
let nodeExporter: Server | undefined;

afterAll(async () => {
  exporter?.child.kill("SIGKILL");
  nodeExporter?.close();
  rmSync(dir, { recursive: true, force: true });
});

// Node exporter text for 2 vCPUs whose counters grow with the wall clock.
function nodeExporterText(): string {
  const t = Date.now() / 1000 - 1.7e9;
  const modes = { user: 0.3, system: 0.05, iowait: 0.01, irq: 0.01, steal: 0.002, idle: 0.6 };
  const lines = [0, 1].flatMap((cpu) =>
    Object.entries(modes).map(([mode, share]) => `node_cpu_seconds_total{cpu="${cpu}",mode="${mode}"} ${share * t}`),
  );
  lines.push(
    `node_context_switches_total ${1000 * t}`,
    `node_intr_total ${800 * t}`,
    `node_vmstat_pgfault ${50 * t}`,
    `node_vmstat_pgmajfault ${0.1 * t}`,
    `node_disk_read_bytes_total{device="vda"} ${4096 * t}`,
    `node_disk_written_bytes_total{device="vda"} ${4096 * t}`,
    `node_network_receive_bytes_total{device="eth0"} ${1500 * t}`,
    `node_network_transmit_bytes_total{device="eth0"} ${1500 * t}`,
    "node_memory_MemTotal_bytes 4294967296",
    "node_memory_MemAvailable_bytes 2147483648",
  );
  return `${lines.join("\n")}\n`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("exporter sources not up yet", () => {
  it("retries the node exporter until it answers, then serves the modelled watts", async () => {
    // A port nobody listens on yet: the node exporter comes up on it later.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const modelPath = join(dir, "model.zip");
    writeVmModel(modelPath, MODEL_A);
    exporter = spawnExporter(["--node-exporter-url", `http://127.0.0.1:${port}/metrics`, "--model-file", modelPath]);
    for (let i = 0; i < 60 && !exporter.output().includes("retrying"); i++) await sleep(250);
    expect(exporter.output()).toContain("guest counters not readable yet; retrying");
    nodeExporter = createServer((_, response) => response.end(nodeExporterText()));
    await new Promise<void>((resolve) => nodeExporter!.listen(port, "127.0.0.1", resolve));
    const [, url] = await exporter.waitForOutput(/exporter: (http:\/\/\S+\/metrics)/, 30_000);
    let text = "";
    for (let i = 0; i < 20 && !text.includes("kepler_node_cpu_watts{"); i++) {
      await sleep(250);
      text = await (await fetch(url!)).text();
    }
    expect(text).toMatch(
      /^kepler_node_cpu_watts\{node_name="[^"]+",zone="package",source="model",model="LinearRegressionTrainer_0"\} \d/m,
    );
  }, 60_000);
});
