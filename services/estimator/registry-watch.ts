// Keeps the estimator's cache in step with the registry: a WatchModels stream, re-opened with backoff
// when it breaks. After a reconnect every cached model is reloaded, since events may have been missed.
import { OutputType } from "../generated/kepler/model/v1/types.js";
import type { RegistryServiceDefinition } from "../generated/kepler/model/v1/registry_service.js";
import { ModelEventKind } from "../generated/kepler/model/v1/registry_service.js";
import type { PeerClient } from "../kit/transport/grpc-client.js";
import type { DomainLogger } from "../kit/observe/logger.js";
import type { Estimator } from "./domain/estimate-power.js";
import { outputTypeFromProto } from "../kit/transport/output-type-codec.js";

/** A running watch. */
export interface RegistryWatch {
  /** Settles after the first attempt to open the stream (established or failed). */
  readonly firstAttempt: Promise<void>;
  stop(): void;
}

const MIN_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 5000;

/**
 * Watches the registry and reloads affected models on each event. `onConnectivity` hears true when the
 * stream opens and false whenever it breaks or fails to open: the estimator's readiness follows it.
 */
export function watchRegistry<P>(
  registry: PeerClient<typeof RegistryServiceDefinition>,
  estimator: Estimator<P>,
  logger: DomainLogger,
  onConnectivity: (reachable: boolean) => void = () => {},
): RegistryWatch {
  const controller = new AbortController();
  let settleFirst: () => void = () => {};
  const firstAttempt = new Promise<void>((resolve) => {
    settleFirst = resolve;
  });
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      controller.signal.addEventListener(
        "abort",
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
  (async () => {
    let connections = 0;
    let backoff = MIN_BACKOFF_MS;
    while (!controller.signal.aborted) {
      try {
        for await (const event of registry.client.watchModels(
          { pipelineName: "", energySource: "", outputType: OutputType.OUTPUT_TYPE_UNSPECIFIED },
          { signal: controller.signal },
        )) {
          if (event.kind === ModelEventKind.MODEL_EVENT_KIND_WATCHING) {
            backoff = MIN_BACKOFF_MS;
            onConnectivity(true);
            if (connections++ > 0) await estimator.reloadAll();
            settleFirst();
            continue;
          }
          const location = event.metadata?.location;
          if (location === undefined) continue;
          await estimator.onModelEvent({
            energySource: location.energySource,
            outputType: outputTypeFromProto(location.outputType) ?? "AbsPower",
            pipelineName: location.pipelineName,
          });
        }
      } catch (error) {
        if (controller.signal.aborted) break;
        logger.warn({ reason: (error as Error).message, retryMs: backoff }, "registry watch broken");
      }
      onConnectivity(false);
      settleFirst();
      await sleep(backoff);
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  })();
  return { firstAttempt, stop: () => controller.abort() };
}
