import type { ConfigKey } from "../../services/kit/config-schema.js";
import { readConfig } from "../../services/kit/config-schema.js";
import { createLogger } from "../../services/kit/logger.js";
import { SERVICE_NAMES, type ServiceName, logFormatKey, logLevelKey } from "../../services/kit/service-addresses.js";
import { waitForShutdownSignal } from "../../services/kit/shutdown.js";
import { startMesh } from "../../services/mesh/start-mesh.js";
import { SERVICE_LAUNCHERS } from "../../services/mesh/service-launchers.js";
import { type Command, type FlagSpec, UsageError } from "../command.js";

const logSchema = { level: logLevelKey, format: logFormatKey };

/** Every service's config keys, deduplicated by flag: the flags `serve` accepts. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- keys of every value type.
function serviceConfigKeys(): ConfigKey<any>[] {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above.
  const byFlag = new Map<string, ConfigKey<any>>();
  for (const key of [
    ...Object.values(logSchema),
    ...SERVICE_NAMES.flatMap((name) => Object.values(SERVICE_LAUNCHERS[name].configSchema)),
  ]) {
    byFlag.set(key.flag, key);
  }
  return [...byFlag.values()];
}

export const serveCommand: Command = {
  name: "serve",
  summary: "Run the gRPC services: all six in one process, or the ones named.",
  usage: `[${SERVICE_NAMES.join("|")} ...] [flags]`,
  get flags(): FlagSpec[] {
    return serviceConfigKeys().map((key) => ({
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
    const logger = createLogger({ level: logConfig.level, format: logConfig.format as "json" | "pretty" | "auto" });
    const mesh = await startMesh({ services: positionals as ServiceName[], env, flags, logger });
    const lines = mesh.servers.map((server) => `  ${server.name.padEnd(10)} ${server.address}`);
    const first = mesh.servers[0];
    stdout.write(
      [
        "kepler-model services listening (gRPC, health, reflection):",
        ...lines,
        "",
        `Try: grpcurl -plaintext ${first?.address ?? "127.0.0.1:8100"} list`,
        "Stop with Ctrl-C (SIGINT) or SIGTERM.",
        "",
      ].join("\n"),
    );
    await waitForShutdownSignal(() => mesh.close(), logger);
    return 0;
  },
};
