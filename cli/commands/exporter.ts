// `kepler-model exporter`: inside a VM, modelled CPU power per RAPL zone on /metrics with Kepler 0.10's
// metric names (services/vm-power/vm-exporter.ts). Counters from /proc (default) or a node exporter; the
// model from a zip file, the registry, or the estimator's Estimate RPC.
import { createServer } from "node:http";
import { hostname } from "node:os";
import { assertFeatureGroup, featuresOf } from "../../services/domain/feature-groups.js";
import { createEstimatorClient } from "../../services/estimator/client.js";
import { OutputType } from "../../services/generated/kepler/model/v1/types.js";
import { createLogger } from "../../services/kit/observe/logger.js";
import { waitForShutdownSignal } from "../../services/kit/transport/shutdown.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { fileModelProvider, type ModelProvider, registryModelProvider } from "../../services/vm-power/exporter-model.js";
import { scrapeNodeExporter } from "../../services/vm-power/node-exporter-counters.js";
import { readProcCounters } from "../../services/vm-power/proc-counters.js";
import { DEFAULT_VM_PIPELINE } from "../../services/vm-power/train-vm-models.js";
import { type RemoteEstimate, VmExporter, type VmExporterDeps } from "../../services/vm-power/vm-exporter.js";
import { vmSpec } from "../../services/vm-power/vm-training-table.js";
import { CLIENT_SECURITY_FLAGS, commandConnection } from "../client-security.js";
import { type Command, UsageError } from "../command.js";

type Flags = Readonly<Record<string, string | boolean | undefined>>;
const text = (flags: Flags, name: string, fallback = ""): string =>
  typeof flags[name] === "string" ? (flags[name] as string) : fallback;

function positive(flags: Flags, name: string, fallback: number): number {
  const raw = flags[name];
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new UsageError(`--${name} must be a positive number, got "${String(raw)}"`);
  return value;
}

export const exporterCommand: Command = {
  name: "exporter",
  summary: "Inside a VM: serve modelled kepler_node_cpu_watts{zone} and kepler_node_cpu_joules_total{zone} (Kepler 0.10 names).",
  usage: "--model-file <zip> | --registry-address host:port | --estimator-address host:port [flags]",
  flags: [
    {
      name: "model-file",
      valueName: "zip",
      description: "Run this model archive (air-gapped VMs); re-read when the file changes.",
    },
    {
      name: "registry-address",
      valueName: "host:port",
      description:
        "Ask this registry for the best model for this VM (its vCPUs and memory as the machine spec) and re-ask every --model-refresh-seconds.",
    },
    {
      name: "estimator-address",
      valueName: "host:port",
      description: "Send each tick's features to this estimator's Estimate RPC instead of running a model here.",
    },
    {
      name: "pipeline",
      valueName: "name",
      description: `Pipeline to select from (registry, estimator; default ${DEFAULT_VM_PIPELINE}).`,
    },
    { name: "feature-group", valueName: "group", description: "GuestOSOnly (default) or GuestOSPerf (registry, estimator)." },
    {
      name: "node-exporter-url",
      valueName: "url",
      description: "Read the counters from this node exporter's /metrics instead of /proc.",
    },
    {
      name: "proc-root",
      valueName: "dir",
      description: "Root of the file system whose /proc and /sys are read (default /; e.g. /host in a container).",
    },
    { name: "interval-seconds", valueName: "s", description: "Seconds between ticks (default 5, Kepler 0.10's interval)." },
    { name: "model-refresh-seconds", valueName: "s", description: "Seconds between model reloads (default 60)." },
    { name: "node-name", valueName: "name", description: "node_name label (default env NODE_NAME, else this host's name)." },
    {
      name: "host",
      valueName: "address",
      description: "Address /metrics listens on (default 127.0.0.1; 0.0.0.0 for a Prometheus outside the VM).",
    },
    {
      name: "port",
      valueName: "port",
      description: "Port of /metrics (default 28283, next to Kepler 0.10's 28282; 0 picks a free one).",
    },
    ...CLIENT_SECURITY_FLAGS,
  ],
  async run({ flags, stdout, env }) {
    const sources = ["model-file", "registry-address", "estimator-address"].filter((name) => text(flags, name) !== "");
    if (sources.length !== 1) throw new UsageError("give exactly one of --model-file, --registry-address, --estimator-address");
    const logger = createLogger({ level: "info", format: "json" });
    const intervalSeconds = positive(flags, "interval-seconds", 5);
    const refreshSeconds = positive(flags, "model-refresh-seconds", 60);
    const pipelineName = text(flags, "pipeline", DEFAULT_VM_PIPELINE);
    const featureGroup = assertFeatureGroup(text(flags, "feature-group", "GuestOSOnly"), "--feature-group");
    const featureNames = featuresOf(featureGroup);
    const nodeExporterUrl = text(flags, "node-exporter-url");
    const procRoot = text(flags, "proc-root", "/");
    const read = nodeExporterUrl === "" ? () => readProcCounters(procRoot) : () => scrapeNodeExporter(nodeExporterUrl, 5000);
    const first = await read();
    const spec = vmSpec(first.vcpus, first.memoryTotalBytes);
    const connection = commandConnection({ env, flags });
    const closers: Array<() => void> = [];
    let power: VmExporterDeps["power"];
    if (text(flags, "model-file") !== "") power = { kind: "model", provider: fileModelProvider(text(flags, "model-file")) };
    else if (text(flags, "registry-address") !== "") {
      const registry = createRegistryClient(text(flags, "registry-address"), connection);
      closers.push(() => registry.close());
      const provider: ModelProvider = registryModelProvider(registry, { pipelineName, featureNames, spec });
      power = { kind: "model", provider };
    } else {
      const estimator = createEstimatorClient(text(flags, "estimator-address"), connection);
      closers.push(() => estimator.close());
      const client: RemoteEstimate = {
        async estimate(names, values) {
          const response = await estimator.client.estimate({
            featureNames: [...names],
            rowCount: 1,
            values: Buffer.from(Float64Array.from(values).buffer),
            outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
            energySource: "rapl-sysfs",
            pipelineName,
            machineSpec: {
              processor: String(spec.processor),
              cores: Number(spec.cores),
              chips: Number(spec.chips),
              memoryGib: Number(spec.memory),
              frequencyMhz: Number(spec.frequency),
              vendor: "",
              threadsPerCore: 0,
            },
          });
          return { watts: response.componentPowers.map((c) => c.powerWatts[0] ?? 0), modelName: response.modelName };
        },
      };
      power = { kind: "estimator", client, featureNames };
    }
    const exporter = new VmExporter({ read, power, nodeName: text(flags, "node-name", env.NODE_NAME ?? hostname()), logger });
    await exporter.refreshModel();
    await exporter.tick();

    const server = createServer((request, response) => {
      if (request.url === "/metrics") {
        response.writeHead(200, { "content-type": "text/plain; version=0.0.4; charset=utf-8" }).end(exporter.metricsText());
      } else response.writeHead(404, { "content-type": "text/plain" }).end("see /metrics\n");
    });
    const host = text(flags, "host", "127.0.0.1");
    const port = flags.port === undefined ? 28283 : Number(flags.port);
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, resolve);
    });
    const bound = (server.address() as { port: number }).port;
    let ticking = false;
    const tickTimer = setInterval(() => {
      if (ticking) return;
      ticking = true;
      void exporter.tick().finally(() => {
        ticking = false;
      });
    }, intervalSeconds * 1000);
    const refreshTimer = setInterval(() => void exporter.refreshModel(), refreshSeconds * 1000);
    const model = exporter.currentModel;
    stdout.write(
      `kepler-model exporter: http://${host}:${bound}/metrics, ${spec.cores} vCPUs, ${spec.memory} GiB, ` +
        `${model === undefined ? (power.kind === "estimator" ? "estimator" : "no model yet") : `model ${model.name} (${model.featureGroup})`}, every ${intervalSeconds} s\n`,
    );
    await waitForShutdownSignal(async () => {
      clearInterval(tickTimer);
      clearInterval(refreshTimer);
      await new Promise<void>((resolve) => server.close(() => resolve()));
      for (const close of closers) close();
    }, logger);
    return 0;
  },
};
