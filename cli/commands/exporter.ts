// `kepler-model exporter`: inside a VM, modelled CPU power per RAPL zone on /metrics with Kepler 0.10's
// metric names, and optionally a modelled powercap / hwmon sysfs tree that an unchanged Kepler 0.10+ reads
// as its host.sysfs (services/vm-power, daemon/exporter-daemon.ts). Counters from /proc (default) or a node
// exporter; the model from a zip file, the registry, or the estimator's Estimate RPC. This file is the
// composition root: it parses flags and hands the daemon the clients and the model runner it needs.
import { hostname } from "node:os";
import { join } from "node:path";
import packageJson from "../../package.json" with { type: "json" };
import { featuresOf } from "../../services/domain/feature-groups.js";
import { createComponentPredictor } from "../../services/estimator/domain/predictor.js";
import { createEstimatorClient } from "../../services/estimator/client.js";
import { OutputType } from "../../services/generated/kepler/model/v1/types.js";
import { readConfig } from "../../services/kit/config/config-schema.js";
import { createLogger } from "../../services/kit/observe/logger.js";
import { createMetricsAuthorizer, metricsTokensFileKey } from "../../services/kit/observe/metrics-auth.js";
import { readTrustedKeys } from "../../services/models/index.js";
import { waitForShutdownSignal } from "../../services/kit/transport/shutdown.js";
import { createRegistryClient } from "../../services/registry/client.js";
import {
  DEFAULT_VM_PIPELINE,
  type ExporterDaemonConfig,
  fileModelProvider,
  readProcCounters,
  registryModelProvider,
  type RemoteEstimate,
  scrapeNodeExporter,
  selectableFeatures,
  type SizeBlend,
  startExporterDaemon,
  type TreeLayout,
  vmSpec,
  vmSpecMessage,
  prometheusHostContext,
  prometheusHostPower,
  ZONES,
} from "../../services/vm-power/index.js";
import { CLIENT_SECURITY_FLAGS, commandConnection } from "../client-security.js";
import { type Command, UsageError } from "../command.js";
import { featureGroupFlag, type Flags, integerFlag, listFlag, numberFlag, textFlag } from "../flag-readers.js";
import { EXPORTER_FLAGS } from "./exporter-flags.js";
import { onlineTrainingOf } from "./exporter-online.js";

/** Linux's max_energy_range_uj of a RAPL package domain on common Intel parts (2^32 energy units of 61 µJ). */
const DEFAULT_MAX_ENERGY_RANGE_UJ = 262_143_328_850;

function treeConfig(flags: Flags): ExporterDaemonConfig["tree"] {
  const root = textFlag(flags, "tree-root");
  if (root === undefined) return undefined;
  const layouts = listFlag(flags, "tree-layout");
  for (const layout of layouts)
    if (layout !== "powercap" && layout !== "hwmon")
      throw new UsageError(`--tree-layout must list powercap and/or hwmon, got "${layout}"`);
  return {
    root,
    layouts: layouts.length === 0 ? ["powercap"] : (layouts as TreeLayout[]),
    maxEnergyRangeUj: integerFlag(flags, "max-energy-range-uj", { min: 1 }) ?? DEFAULT_MAX_ENERGY_RANGE_UJ,
    statePath: textFlag(flags, "tree-state-file") ?? join(root, ".kepler-model-exporter-state.json"),
    updateMs: numberFlag(flags, "tree-update-ms", { positive: true }) ?? 10,
    persistMs: numberFlag(flags, "tree-persist-ms", { positive: true }) ?? 1000,
    maxDowntimeSeconds: numberFlag(flags, "max-downtime-seconds") ?? 600,
  };
}

/**
 * The first reading, retried every 2 s (up to 30 s apart after failures) until it succeeds: a node exporter
 * that is not up yet (a DaemonSet's pods start in any order) is waited for instead of exiting.
 */
async function readWithRetry<T>(read: () => Promise<T>, logger: ReturnType<typeof createLogger>): Promise<T> {
  for (let waitMs = 2000; ; waitMs = Math.min(waitMs * 2, 30_000)) {
    try {
      return await read();
    } catch (error) {
      logger.warn({ reason: (error as Error).message, retryInMs: waitMs }, "guest counters not readable yet; retrying");
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }
}

export const exporterCommand: Command = {
  name: "exporter",
  summary:
    "Inside a VM: serve modelled kepler_node_cpu_watts{zone} (Kepler 0.10 names) and keep a modelled RAPL/hwmon tree for Kepler 0.10+.",
  usage: "--model-file <zip> | --registry-address host:port | --estimator-address host:port [--tree-root dir] [flags]",
  flags: [...EXPORTER_FLAGS, ...CLIENT_SECURITY_FLAGS],
  async run({ flags, stdout, env }) {
    const sources = ["model-file", "registry-address", "estimator-address"].filter((name) => textFlag(flags, name) !== undefined);
    if (sources.length !== 1) throw new UsageError("give exactly one of --model-file, --registry-address, --estimator-address");
    const logger = createLogger({ level: "info", format: "json" });
    const intervalSeconds = numberFlag(flags, "interval-seconds", { positive: true }) ?? 5;
    const refreshSeconds = numberFlag(flags, "model-refresh-seconds", { positive: true }) ?? 60;
    const pipelineName = textFlag(flags, "pipeline") ?? DEFAULT_VM_PIPELINE;
    const featureGroup = featureGroupFlag(flags, "feature-group") ?? "GuestOSOnly";
    const featureNames = featuresOf(featureGroup);
    const nodeExporterUrl = textFlag(flags, "node-exporter-url");
    const procRoot = textFlag(flags, "proc-root") ?? "/";
    const tree = treeConfig(flags);
    const host = textFlag(flags, "host") ?? "127.0.0.1";
    const port = integerFlag(flags, "port", { min: 0 }) ?? 28283;
    // The services' /metrics protection, unchanged: same file format, permission warning and 401.
    const { metricsTokensFile } = readConfig({ metricsTokensFile: metricsTokensFileKey }, env, flags);
    const authorizeMetrics = createMetricsAuthorizer(metricsTokensFile, logger);
    const read =
      nodeExporterUrl === undefined ? () => readProcCounters(procRoot) : () => scrapeNodeExporter(nodeExporterUrl, 5000);
    const first = await readWithRetry(read, logger);
    const spec = vmSpec(first.vcpus, first.memoryTotalBytes);
    const connection = commandConnection({ env, flags });
    const closers: Array<() => void> = [];
    const modelFile = textFlag(flags, "model-file");
    const keysFile = textFlag(flags, "model-public-keys-file") ?? env.KEPLER_MODEL_PUBLIC_KEYS_FILE ?? "";
    const trustedKeys = keysFile === "" ? undefined : await readTrustedKeys(keysFile, "--model-public-keys-file");
    const registryAddress = textFlag(flags, "registry-address");
    let registry: ReturnType<typeof createRegistryClient> | undefined;
    let power: Parameters<typeof startExporterDaemon>[1]["power"];
    if (modelFile !== undefined)
      power = { kind: "model", provider: fileModelProvider(modelFile, createComponentPredictor, trustedKeys) };
    else if (registryAddress !== undefined) {
      const client = createRegistryClient(registryAddress, connection);
      registry = client;
      closers.push(() => client.close());
      const withHostContext = textFlag(flags, "host-context-selector") !== undefined;
      const query = { pipelineName, featureNames: selectableFeatures(featureNames, withHostContext), spec };
      const warnExtrapolating = (blend: SizeBlend, vcpus: number) =>
        logger.warn(
          { vcpus, from: [blend.lower, blend.upper], upperWeight: blend.upperWeight },
          "no model trained for this VM size or sizes on both sides of it: extrapolating from the two nearest (untested accuracy)",
        );
      power = {
        kind: "model",
        provider: registryModelProvider(client, query, createComponentPredictor, warnExtrapolating, trustedKeys),
      };
    } else {
      const estimator = createEstimatorClient(textFlag(flags, "estimator-address")!, connection);
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
            machineSpec: vmSpecMessage(spec),
          });
          return { watts: response.componentPowers.map((c) => c.powerWatts[0] ?? 0), modelName: response.modelName };
        },
      };
      power = { kind: "estimator", client, featureNames };
    }
    const hostPrometheusUrl = textFlag(flags, "host-prometheus-url");
    const hostSelector = textFlag(flags, "host-vm-selector");
    const hostContextSelector = textFlag(flags, "host-context-selector");
    const hostCpus = integerFlag(flags, "host-cpus", { min: 1 });
    if (hostPrometheusUrl === undefined && (hostSelector !== undefined || hostContextSelector !== undefined))
      throw new UsageError("--host-vm-selector and --host-context-selector need --host-prometheus-url");
    if ((hostContextSelector === undefined) !== (hostCpus === undefined))
      throw new UsageError("give --host-context-selector and --host-cpus together");
    const hostContext =
      hostPrometheusUrl === undefined || hostContextSelector === undefined || hostCpus === undefined
        ? undefined
        : prometheusHostContext({ prometheusUrl: hostPrometheusUrl, selector: hostContextSelector, hostCpus });
    const hostPower =
      hostPrometheusUrl === undefined || hostSelector === undefined
        ? undefined
        : prometheusHostPower({
            prometheusUrl: hostPrometheusUrl,
            selector: hostSelector,
            zones: ZONES,
            windowSeconds: numberFlag(flags, "host-window-seconds", { positive: true }),
          });
    const nodeName = textFlag(flags, "node-name") ?? env.NODE_NAME ?? hostname();
    const onlineTraining = onlineTrainingOf(flags, {
      registry,
      hasHostPower: hostPower !== undefined,
      pipelineName,
      featureGroup,
      features: featureNames,
      machine: nodeName,
      spec,
    });
    const daemon = await startExporterDaemon(
      { intervalSeconds, refreshSeconds, host, port, nodeName, version: packageJson.version, tree },
      { read, power, logger, hostPower, hostContext, onlineTraining, authorizeMetrics },
    );
    const model = daemon.exporter.currentModel;
    stdout.write(
      `kepler-model exporter: http://${host}:${daemon.port}/metrics, ${spec.cores} vCPUs, ${spec.memory} GiB, ` +
        `${model === undefined ? (power.kind === "estimator" ? "estimator" : "no model yet") : `model ${model.name} (${model.featureGroup})`}, every ${intervalSeconds} s` +
        `${tree === undefined ? "" : `, ${tree.layouts.join("+")} tree in ${tree.root} every ${tree.updateMs} ms`}` +
        `${onlineTraining === undefined ? "" : `, training online from the host every ${onlineTraining.config.intervalSeconds} s`}\n`,
    );
    await waitForShutdownSignal(async () => {
      await daemon.close();
      for (const close of closers) close();
    }, logger);
    return 0;
  },
};
