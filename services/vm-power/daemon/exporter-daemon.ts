// The VM exporter as a daemon: ticks the exporter (read counters, predict) every `intervalSeconds`,
// reloads the model every `refreshSeconds`, serves /metrics through the kit's metrics server (behind the
// kit's bearer check when `authorizeMetrics` is given: the same 401 as the services'), and, when a
// tree is configured, keeps the modelled sysfs tree current (written every `updateMs` at the latest
// modelled watts, which a failed tick leaves unchanged). With online training, the ticks served from the
// host's number are its rows and each publish is reloaded at once (../online/online-training.ts).
// `start` returns a handle; nothing is global.
import { type MetricsServer, startMetricsServer } from "../../kit/observe/metrics.js";
import type { MetricsAuthorizer } from "../../kit/observe/metrics-auth.js";
import type { DomainLogger } from "../../kit/observe/logger.js";
import { registerExporterMetrics } from "../exporter/exporter-metrics.js";
import { type TickOutcome, VmExporter, type VmExporterDeps, ZONES } from "../exporter/vm-exporter.js";
import { type TreeLayout, TreeWriter } from "../tree/tree-writer.js";
import {
  type OnlineTraining,
  type OnlineTrainingConfig,
  type OnlineTrainingDeps,
  OnlineTrainingRows,
  startOnlineTraining,
} from "../online/online-training.js";
import { registerOnlineTrainingMetrics } from "../online/online-training-metrics.js";

/** Where and how the modelled tree is written. */
export interface TreeConfig {
  /** The folder Kepler's host.sysfs points at. */
  root: string;
  layouts: readonly TreeLayout[];
  maxEnergyRangeUj: number;
  statePath: string;
  /** Milliseconds between rewrites of the files. */
  updateMs: number;
  /** Milliseconds between saves of the counters. */
  persistMs: number;
  maxDowntimeSeconds: number;
}

export interface ExporterDaemonConfig {
  intervalSeconds: number;
  refreshSeconds: number;
  /** /metrics address; port 0 picks a free one. */
  host: string;
  port: number;
  nodeName: string;
  version: string;
  tree?: TreeConfig;
}

export interface ExporterDaemonDeps extends Omit<VmExporterDeps, "nodeName" | "onHostSample"> {
  logger: DomainLogger;
  /** Seconds of the tree's clock (default: the wall clock). */
  clock?: () => number;
  /** Online training from the host's number (needs `hostPower`; the deps publish to the model's registry). */
  onlineTraining?: { config: OnlineTrainingConfig; deps: Omit<OnlineTrainingDeps, "logger"> };
  /** Who may read /metrics (createMetricsAuthorizer of --metrics-tokens-file); undefined: open. */
  authorizeMetrics?: MetricsAuthorizer;
}

export interface ExporterDaemonHandle {
  readonly port: number;
  readonly exporter: VmExporter;
  readonly writer: TreeWriter | undefined;
  readonly onlineTraining: OnlineTraining | undefined;
  close(): Promise<void>;
}

/** One tick; on success the tree advances at the new watts from now on (and shows them at once). */
export async function tickIntoTree(exporter: VmExporter, writer: TreeWriter | undefined): Promise<TickOutcome> {
  const outcome = await exporter.tick();
  const watts = exporter.status.watts;
  if (outcome === "ok" && writer !== undefined && watts !== undefined) {
    writer.setWatts(watts);
    writer.flush();
  }
  return outcome;
}

/** Starts the daemon (see the file comment). */
export async function startExporterDaemon(config: ExporterDaemonConfig, deps: ExporterDaemonDeps): Promise<ExporterDaemonHandle> {
  const online = deps.onlineTraining;
  if (online !== undefined && deps.hostPower === undefined)
    throw new Error("online training needs the host's power source (its rows are the host's watts)");
  const rows = online === undefined ? undefined : new OnlineTrainingRows(online.config.features, online.config.maxRows);
  const exporter = new VmExporter({
    ...deps,
    nodeName: config.nodeName,
    ...(rows === undefined ? {} : { onHostSample: (sample) => rows.add(sample) }),
  });
  const tree = config.tree;
  const writer =
    tree === undefined
      ? undefined
      : TreeWriter.open({
          root: tree.root,
          layouts: tree.layouts,
          zones: ZONES,
          maxEnergyRangeUj: tree.maxEnergyRangeUj,
          statePath: tree.statePath,
          clock: deps.clock,
          maxDowntimeSeconds: tree.maxDowntimeSeconds,
        });
  if (writer !== undefined && tree !== undefined) writer.start(tree.updateMs, tree.persistMs);
  let metrics: MetricsServer | undefined;
  try {
    await exporter.refreshModel();
    await tickIntoTree(exporter, writer);
    registerExporterMetrics({
      exporter,
      zones: ZONES,
      nodeName: config.nodeName,
      version: config.version,
      tree: writer === undefined || tree === undefined ? undefined : { writer, root: tree.root, layouts: tree.layouts },
    });
    metrics = await startMetricsServer(config.host, config.port, { authorize: deps.authorizeMetrics });
  } catch (error) {
    writer?.close();
    throw error;
  }
  let ticking = false;
  const tickTimer = setInterval(() => {
    if (ticking) return;
    ticking = true;
    void tickIntoTree(exporter, writer).finally(() => {
      ticking = false;
    });
  }, config.intervalSeconds * 1000);
  const refreshTimer = setInterval(() => void exporter.refreshModel(), config.refreshSeconds * 1000);
  // A publish is served at once (the registry selects it for this VM's size), not at the next refresh.
  const onlineTraining =
    online === undefined || rows === undefined
      ? undefined
      : startOnlineTraining(rows, online.config, {
          ...online.deps,
          logger: deps.logger,
          onPublished: async (results) => {
            if (results.some((r) => r.outcome === "succeeded")) await exporter.refreshModel();
          },
        });
  if (onlineTraining !== undefined) registerOnlineTrainingMetrics(onlineTraining);
  if (tree !== undefined)
    deps.logger.info({ root: tree.root, layouts: tree.layouts, updateMs: tree.updateMs }, "writing the modelled tree");
  return {
    port: metrics.port,
    exporter,
    writer,
    onlineTraining,
    async close() {
      onlineTraining?.stop();
      clearInterval(tickTimer);
      clearInterval(refreshTimer);
      await metrics.close();
      writer?.close();
    },
  };
}
