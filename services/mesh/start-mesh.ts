import type { Flags } from "../kit/config/config-schema.js";
import type { ServerHandle } from "../kit/transport/grpc-server.js";
import { type CallObservation, DEFAULT_CALL_OBSERVATION } from "../kit/observe/call-observation.js";
import type { Logger } from "../kit/observe/logger.js";
import { SERVICE_NAMES, type ServiceName } from "../kit/config/service-addresses.js";
import type { ServiceLauncher } from "../kit/config/service-launcher.js";
import { SERVICE_LAUNCHERS } from "./service-launchers.js";
import { type ServiceThreadOptions, startServiceOnThread } from "./service-thread.js";

export interface MeshOptions {
  /** Services to start; all six when empty. */
  services?: readonly ServiceName[];
  env?: NodeJS.ProcessEnv;
  flags?: Flags;
  logger: Logger;
  /** How every started server observes its calls; default: measured, not traced. */
  observation?: CallObservation;
  /** When given, the estimator runs on a thread of its own (service-thread.ts), with these log and trace settings. */
  estimatorThread?: ServiceThreadOptions;
}

/** The running services of one process. */
export interface MeshHandle {
  readonly servers: readonly ServerHandle[];
  /** Closes every server (dependents first), letting in-flight calls finish. */
  close(): Promise<void>;
}

/**
 * Starts services in one process, peers before the services that call them. A service whose peer
 * runs in the same process is pointed at that peer's bound address (so port 0 works in tests).
 */
export async function startMesh(options: MeshOptions): Promise<MeshHandle> {
  const wanted = options.services && options.services.length > 0 ? options.services : SERVICE_NAMES;
  const started: ServerHandle[] = [];
  const addresses: Partial<Record<ServiceName, string>> = {};
  try {
    for (const launcher of startOrder(wanted)) {
      const peerFlags = Object.fromEntries(
        launcher.peers.flatMap((peer) => (addresses[peer] ? [[`${peer}-address`, addresses[peer]]] : [])),
      );
      const config = launcher.readConfig(options.env ?? {}, { ...options.flags, ...peerFlags });
      const deps = { logger: options.logger, observation: options.observation ?? DEFAULT_CALL_OBSERVATION };
      const handle =
        launcher.name === "estimator" && options.estimatorThread !== undefined
          ? await startServiceOnThread("estimator", config, { ...deps, thread: options.estimatorThread })
          : await launcher.start(config, deps);
      started.push(handle);
      addresses[launcher.name] = handle.address;
    }
  } catch (error) {
    await closeAll(started);
    throw error;
  }
  return { servers: started, close: () => closeAll(started) };
}

async function closeAll(servers: readonly ServerHandle[]): Promise<void> {
  for (const server of [...servers].reverse()) await server.close();
}

/** Launchers for `wanted` ordered so that every peer starts before the services that call it. */
function startOrder(wanted: readonly ServiceName[]): ServiceLauncher[] {
  const ordered: ServiceLauncher[] = [];
  const visit = (name: ServiceName, path: ServiceName[]) => {
    if (ordered.some((launcher) => launcher.name === name) || !wanted.includes(name)) return;
    if (path.includes(name)) throw new Error(`service dependency cycle: ${[...path, name].join(" -> ")}`);
    const launcher = SERVICE_LAUNCHERS[name];
    for (const peer of launcher.peers) visit(peer, [...path, name]);
    ordered.push(launcher);
  };
  for (const name of wanted) visit(name, []);
  return ordered;
}
