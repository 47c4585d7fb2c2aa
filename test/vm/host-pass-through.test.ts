// The host's own number: the exporter serves the VM's watts from the host Kepler's
// kepler_vm_cpu_joules_total through a real Prometheus (scraping a host-Kepler stand-in that writes the
// series with explicit timestamps, so the host's watts are known exactly), falls back to its model when
// Prometheus goes away and serves the host's again when a Prometheus returns; /metrics says which source
// is live, the modelled tree follows either, and no energy counter ever falls.
import { readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createServer as createTcpServer, connect, type Server as TcpServer } from "node:net";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type ExporterDaemonHandle, prometheusHostPower, tickIntoTree, ZONES } from "../../services/vm-power/index.js";
import { describeWithPrometheus, type PrometheusInstance, startPrometheus } from "../support/prometheus.js";
import { MadeUpGuest, modelWatts, writeVmModel } from "./support/modelled-vm.js";
import { modelFilePower, startTestDaemon } from "./support/test-daemon.js";
import { MODEL_A, scratchFolder } from "./support/tree-scenario.js";

const HOST_WATTS = [31.5, 22.25, 4.75, 6.125];
const USER_RATIO = 0.25;

// The host's Kepler: the VM's joules at HOST_WATTS, each sample stamped with the millisecond it describes.
function startHostKepler(): Promise<Server> {
  const startMs = Date.now();
  const server = createServer((_, response) => {
    const ms = Date.now();
    const lines = ZONES.map(
      (zone, i) =>
        `kepler_vm_cpu_joules_total{vm_id="vm-1",zone="${zone}"} ${1000 + (HOST_WATTS[i]! * (ms - startMs)) / 1000} ${ms}`,
    );
    response.end(`# TYPE kepler_vm_cpu_joules_total counter\n${lines.join("\n")}\n`);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

// A fixed address in front of whichever Prometheus runs now (a new one gets a new port).
function startForwarder(target: () => number | undefined): Promise<TcpServer> {
  const server = createTcpServer((socket) => {
    const port = target();
    if (port === undefined) return socket.destroy();
    const upstream = connect(port, "127.0.0.1");
    socket.pipe(upstream).pipe(socket);
    upstream.on("error", () => socket.destroy());
    socket.on("error", () => upstream.destroy());
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

let dir = "";
let kepler: Server;
let forwarder: TcpServer;
let prometheus: PrometheusInstance | undefined;
let daemon: ExporterDaemonHandle | undefined;

beforeAll(async () => {
  dir = scratchFolder("host-pass-through-");
  kepler = await startHostKepler();
  forwarder = await startForwarder(() => prometheus?.port);
});

afterAll(async () => {
  await daemon?.close();
  await prometheus?.stop();
  kepler?.close();
  forwarder?.close();
  rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeWithPrometheus("the host's own number through Prometheus", () => {
  it("equals the host's watts to 0.1 %, falls back to the model and back, and no counter falls", async () => {
    const keplerAddress = `127.0.0.1:${(kepler.address() as AddressInfo).port}`;
    prometheus = await startPrometheus({ scrapeTargets: [keplerAddress] });
    const modelPath = join(dir, "model.zip");
    writeVmModel(modelPath, MODEL_A);
    const guest = new MadeUpGuest();
    daemon = await startTestDaemon(
      {
        read: async () => guest.snapshot(Date.now() / 1000, USER_RATIO),
        power: modelFilePower(modelPath),
        hostPower: prometheusHostPower({
          prometheusUrl: `http://127.0.0.1:${(forwarder.address() as AddressInfo).port}`,
          selector: 'vm_id="vm-1"',
          zones: ZONES,
          windowSeconds: 10,
          maxAgeSeconds: 5,
          timeoutMs: 1000,
        }),
      },
      dir,
    );
    const exporter = daemon.exporter;
    const joules: number[][] = [];
    const energyUj: number[] = [];
    const tick = async () => {
      expect(await tickIntoTree(exporter, daemon!.writer)).toBe("ok");
      joules.push([...exporter.status.joules]);
      energyUj.push(Number(readFileSync(join(dir, "sys/class/powercap/intel-rapl:0/energy_uj"), "utf8")));
    };
    const tickUntil = async (source: "host" | "model") => {
      for (let i = 0; i < 40 && exporter.status.source !== source; i++) {
        await sleep(500);
        await tick();
      }
      expect(exporter.status.source).toBe(source);
    };
    const expectHostWatts = async () => {
      for (let i = 0; i < 3; i++) {
        await sleep(700);
        await tick();
        expect(exporter.status.source).toBe("host");
        exporter.status.watts!.forEach((w, z) => expect(Math.abs(w / HOST_WATTS[z]! - 1)).toBeLessThan(0.001));
      }
      const metrics = await (await fetch(`http://127.0.0.1:${daemon!.port}/metrics`)).text();
      const served = /^kepler_node_cpu_watts\{node_name="vm-1",zone="package",source="host",model=""\} (\S+)$/m.exec(metrics);
      expect(Math.abs(Number(served?.[1]) / HOST_WATTS[0]! - 1)).toBeLessThan(0.001);
      expect(metrics).toMatch(/^kepler_node_cpu_joules_total\{node_name="vm-1",zone="package",source="host,model"\} /m);
      const hwmon = Number(readFileSync(join(dir, "sys/class/hwmon/hwmon0/power1_input"), "utf8"));
      expect(Math.abs(hwmon / 1e6 / HOST_WATTS[0]! - 1)).toBeLessThan(0.001);
    };

    await tickUntil("host");
    await expectHostWatts();

    // Prometheus goes away: the model's watts, on the same counters.
    await prometheus.stop();
    prometheus = undefined;
    await sleep(500);
    await tick();
    expect(exporter.status.source).toBe("model");
    const modelled = modelWatts(MODEL_A, USER_RATIO);
    exporter.status.watts!.forEach((w, z) => expect(w).toBeCloseTo(modelled[z]!, 6));
    const metrics = await (await fetch(`http://127.0.0.1:${daemon.port}/metrics`)).text();
    expect(metrics).toContain('zone="package",source="model",model="LinearRegressionTrainer_0"}');
    await sleep(500);
    await tick();

    // A Prometheus returns (a new one, behind the same address): the host's watts again.
    prometheus = await startPrometheus({ scrapeTargets: [keplerAddress] });
    await tickUntil("host");
    await expectHostWatts();

    for (let i = 1; i < joules.length; i++) {
      joules[i]!.forEach((j, z) => expect(j).toBeGreaterThan(joules[i - 1]![z]!));
      expect(energyUj[i]).toBeGreaterThan(energyUj[i - 1]!);
    }
  }, 120_000);
});
