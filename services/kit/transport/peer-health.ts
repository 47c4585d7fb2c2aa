import { type Channel, createClient } from "nice-grpc";
import { HealthDefinition } from "nice-grpc-server-health";
import type { Logger } from "../observe/logger.js";

/** A peer this service cannot work without, reached over the channel its client uses. */
export interface RequiredPeer {
  readonly name: string;
  readonly channel: Channel;
}

/** Default time between checks of the required peers. */
export const DEFAULT_PEER_HEALTH_INTERVAL_MS = 5000;
// SERVING from grpc.health.v1.
const SERVING = 1;

/**
 * Checks every required peer's health ("" service) each `intervalMs`, each check bounded by half the
 * interval (at most 2 s). Calls `onChange` with the peers that did not answer SERVING whenever that
 * set changes. Checking over the channel the service itself uses means a wedged connection is seen,
 * not only a stopped peer.
 */
export function watchPeerHealth(
  peers: readonly RequiredPeer[],
  options: { intervalMs: number; logger: Logger; onChange(unhealthy: readonly string[]): void },
): { stop(): void } {
  const deadlineMs = Math.min(2000, Math.max(50, Math.floor(options.intervalMs / 2)));
  const clients = peers.map((peer) => ({ name: peer.name, health: createClient(HealthDefinition, peer.channel) }));
  let previous = "";
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const check = async () => {
    const results = await Promise.all(
      clients.map(async ({ name, health }) => {
        try {
          const { status } = await health.check({ service: "" }, { signal: AbortSignal.timeout(deadlineMs) });
          return status === SERVING ? undefined : name;
        } catch {
          return name;
        }
      }),
    );
    if (stopped) return;
    const unhealthy = results.filter((name): name is string => name !== undefined);
    const key = unhealthy.join(",");
    if (key !== previous) {
      previous = key;
      if (unhealthy.length > 0) options.logger.warn({ peers: unhealthy, deadlineMs }, "required peers not answering health");
      else options.logger.info({}, "required peers answering again");
      options.onChange(unhealthy);
    }
    timer = setTimeout(() => void check(), options.intervalMs);
    timer.unref();
  };
  timer = setTimeout(() => void check(), options.intervalMs);
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
