import type { ConfigKey } from "../../services/kit/config/config-schema.js";
import { readConfig } from "../../services/kit/config/config-schema.js";
import { type LoggerOptions, createLogger } from "../../services/kit/observe/logger.js";
import { versionLine } from "../../services/domain/build-info.js";
import { startMetricsServer } from "../../services/kit/observe/metrics.js";
import { createMetricsAuthorizer } from "../../services/kit/observe/metrics-auth.js";
import { otlpTracesEndpoint, startTracing } from "../../services/kit/observe/tracing.js";
import { modelPathKey } from "../../services/kit/config/model-path-key.js";
import { SERVICE_NAMES, type ServiceName, logFormatKey, logLevelKey } from "../../services/kit/config/service-addresses.js";
import { waitForShutdownSignal } from "../../services/kit/transport/shutdown.js";
import { DEFAULT_PIPELINE_OPTIONS, type DefaultModelsEvent } from "../../services/mesh/default-models.js";
import { meshConfigSchema } from "../../services/mesh/default-models-config.js";
import { readEstimatorConfig } from "../../services/estimator/config.js";
import { grpcurlConnectionFlags, grpcurlEstimateCommand } from "../../services/mesh/estimate-example.js";
import { securityConfigSchema } from "../../services/kit/security/security-config.js";
import { SERVICE_LAUNCHERS } from "../../services/mesh/service-launchers.js";
import { type DefaultMeshHandle, startMeshWithDefaultModels } from "../../services/mesh/start-mesh-with-default-models.js";
import { outputTypeFromProto } from "../../services/kit/transport/output-type-codec.js";
import { type Command, type FlagSpec, UsageError } from "../command.js";

const logSchema = { level: logLevelKey, format: logFormatKey };

/** Every config key `serve` reads (log, launcher, each service's), deduplicated by flag, in help order. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- keys of every value type.
export function serveConfigKeys(): ConfigKey<any>[] {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above.
  const byFlag = new Map<string, ConfigKey<any>>();
  for (const key of [
    ...Object.values(logSchema),
    ...Object.values(meshConfigSchema),
    ...SERVICE_NAMES.flatMap((name) => Object.values(SERVICE_LAUNCHERS[name].configSchema)),
  ]) {
    byFlag.set(key.flag, key);
  }
  return [...byFlag.values()];
}

/** Prints the default training: a header, one line per trained model, nothing for other progress. */
function defaultTrainingPrinter(stdout: NodeJS.WritableStream, modelPath: string) {
  const { pipelineName, energySources, trainerNames } = DEFAULT_PIPELINE_OPTIONS;
  let total = 0;
  let done = 0;
  return {
    start(removedUnfinishedCount: number) {
      if (removedUnfinishedCount > 0)
        stdout.write(
          `Removed ${removedUnfinishedCount} models of a default training that did not finish (no metadata.json); training the whole set again.\n`,
        );
      stdout.write(
        `No models in ${modelPath}: training the default models (pipeline "${pipelineName}": ${energySources.join(" and ")}, ` +
          `AbsPower and DynPower, ${trainerNames.join(" and ")}) from the bundled coremark recording. ` +
          "Skip with --no-default-models.\n",
      );
    },
    event(event: DefaultModelsEvent) {
      if (event.kind === "progress") {
        if (event.progress.stage === "train") total = event.progress.total;
        return;
      }
      const r = event.result;
      done += 1;
      const count = `[${String(done).padStart(String(total).length)}/${total}]`;
      const output = outputTypeFromProto(r.outputType) ?? "AbsPower";
      const status = r.failureReason === "" ? `MAE ${r.maeWatts.toFixed(2)} W` : `failed: ${r.failureReason}`;
      stdout.write(
        `  ${count} ${r.energySource.padEnd(10)} ${output} ${r.featureGroup.padEnd(18)} ${(r.modelName || r.trainerName).padEnd(26)} ${status}\n`,
      );
    },
  };
}

function outcomeLine(outcome: DefaultMeshHandle["defaultModels"], modelPath: string): string[] {
  if (outcome === undefined) return [];
  switch (outcome.status) {
    case "skipped":
      return [`Serving the models in ${modelPath} (no default training: the folder already holds models).`];
    case "trained": {
      const { summary, elapsedMs } = outcome;
      return [
        `Default models ready: ${summary.succeededCount} published to pipeline "${summary.pipelineName}" in ${(elapsedMs / 1000).toFixed(1)} s` +
          (summary.failedCount > 0 ? `, ${summary.failedCount} failed.` : "."),
      ];
    }
    case "failed":
      return [
        `Default training failed: ${outcome.error instanceof Error ? outcome.error.message : String(outcome.error)}`,
        "Estimate answers FAILED_PRECONDITION until a pipeline publishes models (kepler-model pipeline run).",
      ];
    case "cancelled":
      return [];
  }
}

// A thread's stdout is no terminal: "auto" is decided here, as for the main thread's logger.
const threadLog = (log: LoggerOptions): LoggerOptions =>
  log.format === "auto" ? { ...log, format: process.stdout.isTTY === true ? "pretty" : "json" } : log;

export const serveCommand: Command = {
  name: "serve",
  summary: "Run the gRPC services: all six in one process (training default models on an empty MODEL_PATH), or the ones named.",
  usage: `[${SERVICE_NAMES.join("|")} ...] [flags]`,
  get flags(): FlagSpec[] {
    return serveConfigKeys().map((key) => ({
      name: key.flag,
      description: `${key.description} Env ${key.env}, default ${JSON.stringify(key.default)}.`,
      boolean: key.type === "boolean",
    }));
  },
  async run({ flags, positionals, stdout, env }) {
    for (const name of positionals) {
      if (!(SERVICE_NAMES as string[]).includes(name))
        throw new UsageError(`unknown service "${name}" (services: ${SERVICE_NAMES.join(", ")})`);
    }
    const logConfig = readConfig(logSchema, env, flags);
    const { defaultModels, metricsHost, metricsPort, metricsTokensFile, otlpEndpoint } = readConfig(meshConfigSchema, env, flags);
    const { modelPath } = readConfig({ modelPath: modelPathKey }, env, flags);
    const { estimatorSocket } = readEstimatorConfig(env, flags);
    const security = readConfig(securityConfigSchema, env, flags);
    const grpcurlFlags = grpcurlConnectionFlags(security);
    const httpScheme = security.tlsCert === "" ? "http" : "https";
    const logger = createLogger({ level: logConfig.level, format: logConfig.format as "json" | "pretty" | "auto" });
    const authorizeMetrics = createMetricsAuthorizer(metricsTokensFile, logger);

    // Tracing is on only with an OTLP endpoint; servers started below then trace every call. Calls are
    // measured unless the metrics endpoint is off (--metrics-port -1).
    const tracesEndpoint = otlpTracesEndpoint(otlpEndpoint, env);
    const stopTracing = tracesEndpoint === "" ? undefined : await startTracing({ endpoint: tracesEndpoint });
    const observation = { measure: metricsPort >= 0, trace: stopTracing !== undefined };

    // Signals are handled from the start: SIGTERM during the default training cancels it and exits 0.
    const abort = new AbortController();
    const printer = defaultTrainingPrinter(stdout, modelPath);
    // The estimator beside other services runs on a thread of its own (services/mesh/service-thread.ts).
    const beside = positionals.length === 0 || (positionals.includes("estimator") && positionals.length > 1);
    const starting = startMeshWithDefaultModels({
      services: positionals as ServiceName[],
      ...(beside ? { estimatorThread: { log: threadLog(logConfig as LoggerOptions), tracesEndpoint } } : {}),
      env,
      flags,
      logger,
      observation,
      defaultModels,
      onDefaultModelsStart: (removed) => printer.start(removed),
      onDefaultModelsEvent: (event) => printer.event(event),
      signal: abort.signal,
    });
    // One /metrics endpoint for every service of this process (started first: it also shows the training).
    // Fail fast: a listener that cannot start (gRPC, HTTP, metrics, socket) stops everything already
    // started and fails the command (exit 1, one line naming the listener and its address), so a
    // half-started process never looks alive to probes.
    const metricsStarting =
      metricsPort < 0
        ? Promise.resolve(undefined)
        : startMetricsServer(metricsHost, metricsPort, { authorize: authorizeMetrics });
    const closeAll = async () => {
      abort.abort();
      const [mesh, metrics] = await Promise.all([starting.catch(() => undefined), metricsStarting.catch(() => undefined)]);
      await mesh?.close();
      await metrics?.close();
      await stopTracing?.();
    };
    const stopped = waitForShutdownSignal(closeAll, logger);
    const [metricsResult, meshResult] = await Promise.allSettled([
      metricsStarting.catch((error: unknown) => {
        abort.abort();
        throw error;
      }),
      starting,
    ]);
    if (metricsResult.status === "rejected" || meshResult.status === "rejected") {
      await closeAll();
      throw metricsResult.status === "rejected" ? metricsResult.reason : (meshResult as PromiseRejectedResult).reason;
    }
    const metrics = metricsResult.value;
    const mesh = meshResult.value;
    if (!abort.signal.aborted) {
      const estimator = mesh.servers.find((server) => server.name === "estimator");
      const first = mesh.servers[0];
      stdout.write(
        [
          ...outcomeLine(mesh.defaultModels, modelPath),
          "",
          `${versionLine()}: services listening (gRPC, health, reflection):`,
          ...mesh.servers.map((server) => `  ${server.name.padEnd(10)} ${server.address}`),
          ...mesh.servers
            .filter((server) => server.name === "registry")
            .flatMap((server) => [
              `  ${"registry".padEnd(10)} ${httpScheme}://${server.address}/model (Kepler's model server API: POST /model, GET /best-models)`,
              `  ${"models".padEnd(10)} ${httpScheme}://${server.address}/ui (model browser: pipelines, models, accuracy reports)`,
            ]),
          ...(metrics === undefined
            ? []
            : [`  ${"metrics".padEnd(10)} http://${metricsHost}:${metrics.port}/metrics (Prometheus)`]),
          ...(estimator !== undefined && estimatorSocket !== ""
            ? [`  ${"estimator".padEnd(10)} unix:${estimatorSocket} (Kepler's estimator sidecar protocol)`]
            : []),
          "",
          ...(estimator === undefined
            ? [`Try: grpcurl ${grpcurlFlags} ${first?.address ?? "127.0.0.1:8100"} list`]
            : [
                "Estimate node power from Kepler's metrics (grpcurl reads the contract by reflection):",
                `  ${grpcurlEstimateCommand(estimator.address, grpcurlFlags)}`,
              ]),
          "Stop with Ctrl-C (SIGINT) or SIGTERM.",
          "",
        ].join("\n"),
      );
    }
    await stopped;
    return 0;
  },
};
