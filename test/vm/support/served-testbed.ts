// The VM test bed (test/support/vm-testbed.ts) served as the end-to-end tests need it: its recording
// backfilled into a real Prometheus, and a real registry over a temporary folder. Started in a beforeAll;
// in an afterAll the exporters the tests spawned are killed, whatever the tests started is stopped (last
// first), then the registry and Prometheus.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { silentLogger } from "../../../services/kit/observe/logger.js";
import type { ServerHandle } from "../../../services/kit/transport/grpc-server.js";
import { createPrometheusClient } from "../../../services/prometheus/prometheus-client.js";
import { startRegistry } from "../../../services/registry/main.js";
import {
  DEFAULT_VM_MAPPING,
  type NodeTypeTable,
  vmQueries,
  type VmQueryResults,
} from "../../../services/vm-power/training/vm-training-table.js";
import type { RunningChild } from "../../support/child-process.js";
import { type PrometheusInstance, savedResponseToOpenMetrics, startPrometheus } from "../../support/prometheus.js";
import { generateVmRecording, type TestbedOptions, type TestbedRecording, ZONES } from "../../support/vm-testbed.js";

export interface ServedTestbed {
  readonly recording: TestbedRecording;
  readonly prometheusUrl: string;
  readonly registryAddress: string;
  /** A temporary folder, removed in the afterAll. */
  readonly dir: string;
  /** The guest and host series vm-train reads ("vm" job, default mapping) over [from, to]. */
  queryWindow(from: number, to: number): Promise<VmQueryResults>;
  /** The true power of every row of a node type's table, per zone (rows are in VM order, then time). */
  truthWatts(nodeTable: NodeTypeTable): Record<string, number[]>;
  /** Kills `child` in the afterAll. */
  killAfterAll(child: RunningChild): void;
  /** Runs `stop` in the afterAll. */
  stopAfterAll(stop: () => Promise<void>): void;
}

export function useServedTestbed(options: TestbedOptions): ServedTestbed {
  let started: { recording: TestbedRecording; prometheus: PrometheusInstance; registry: ServerHandle; dir: string } | undefined;
  let dir: string | undefined;
  let prometheus: PrometheusInstance | undefined;
  let registry: ServerHandle | undefined;
  const children: RunningChild[] = [];
  const stops: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "vm-power-"));
    const recording = generateVmRecording(options);
    prometheus = await startPrometheus({
      backfillOpenMetrics: savedResponseToOpenMetrics(recording.response),
      lookbackDelta: "10s",
    });
    registry = await startRegistry(
      { host: "127.0.0.1", port: 0, modelPath: join(dir, "models"), rescanIntervalMs: 0, sourcePipelines: [] },
      { logger: silentLogger() },
    );
    started = { recording, prometheus, registry, dir };
  }, 300_000);
  afterAll(async () => {
    for (const child of children) child.child.kill("SIGKILL");
    for (const stop of stops.reverse()) await stop();
    await registry?.close();
    await prometheus?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });
  const current = () => {
    if (started === undefined) throw new Error("the test bed is served from beforeAll");
    return started;
  };
  return {
    get recording() {
      return current().recording;
    },
    get prometheusUrl() {
      return current().prometheus.baseUrl;
    },
    get registryAddress() {
      return current().registry.address;
    },
    get dir() {
      return current().dir;
    },
    async queryWindow(from, to) {
      const client = createPrometheusClient({ baseUrl: current().prometheus.baseUrl, timeoutMs: 30_000 });
      const results: VmQueryResults = {};
      for (const [key, query] of Object.entries(vmQueries("vm", DEFAULT_VM_MAPPING)))
        results[key] = await client.queryRange(query, from, to, options.stepSeconds);
      return results;
    },
    truthWatts: (nodeTable) =>
      Object.fromEntries(
        ZONES.map((zone) => [
          zone,
          nodeTable.vms.flatMap((vm) =>
            Array.from({ length: vm.rowCount }, (_, r) => {
              const t = nodeTable.table.timestamps[vm.firstRow + r]!;
              return current().recording.truthWatts.get(vm.name)![zone][(t - options.startSeconds) / options.stepSeconds]!;
            }),
          ),
        ]),
      ),
    killAfterAll: (child) => children.push(child),
    stopAfterAll: (stop) => stops.push(stop),
  };
}
