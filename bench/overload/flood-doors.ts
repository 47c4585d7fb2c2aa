// The doors a flood hits (bench/overload): one call of each, and its outcome timed. Used by the bench
// for unloaded samples and by flood-child.ts, which floods from its own process.
import { request as httpRequest } from "node:http";
import { ClientError, Status } from "nice-grpc";
import type { EstimatorServiceDefinition } from "../../services/generated/kepler/model/v1/estimator_service.js";
import type { RegistryServiceDefinition } from "../../services/generated/kepler/model/v1/registry_service.js";
import { OutputType } from "../../services/generated/kepler/model/v1/types.js";
import type { PeerClient } from "../../services/kit/transport/grpc-client.js";
import { keplerSidecarCall } from "../../test/support/kepler-sidecar-client.js";

/** Calls per flood. */
export const FLOOD = 400;
// Long enough for every refusal to come back before an admitted stream is let go, on a busy machine.
const STREAM_HOLD_MS = 10_000;
export const KEPLER_IDLE =
  '{"metrics":["bpf_cpu_time_ms","bpf_page_cache_hit"],"values":[[10,2]],"output_type":"AbsPower","source":"intel_rapl","system_features":[],"system_values":[],"trainer_name":"","filter":""}';

export interface Outcome {
  ok: boolean;
  refused: boolean;
  ms: number;
  /** Why a call that was neither answered nor refused failed. */
  error?: string;
}

export async function timed(call: () => Promise<boolean | void>): Promise<Outcome> {
  const start = performance.now();
  try {
    const refusedInBand = (await call()) === true;
    return { ok: !refusedInBand, refused: refusedInBand, ms: performance.now() - start };
  } catch (error) {
    const refused = error instanceof ClientError && error.code === Status.RESOURCE_EXHAUSTED;
    return { ok: false, refused, ms: performance.now() - start, ...(refused ? {} : { error: (error as Error).message }) };
  }
}

/** A GET on a fresh connection; true when it was refused (429). */
export function httpGet(port: number, path: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: "127.0.0.1", port, path, agent: false }, (response) => {
      response.resume();
      response.on("end", () => resolve(response.statusCode === 429));
    });
    request.on("error", reject);
    request.end();
  });
}

/** The Estimate every Estimate door sends (the bench's model reads these features). */
export const ESTIMATE_REQUEST = {
  featureNames: ["bpf_cpu_time_ms", "bpf_page_cache_hit"],
  rowCount: 1,
  values: Buffer.from(new Float64Array([10, 2]).buffer),
  outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
  energySource: "rapl-sysfs",
};

/** One call per door; true (or RESOURCE_EXHAUSTED thrown) when refused. */
export function createDoors(peers: {
  registry: PeerClient<typeof RegistryServiceDefinition>;
  estimator: PeerClient<typeof EstimatorServiceDefinition>;
  registryPort: number;
  socketPath: string;
}): Record<string, () => Promise<boolean | void>> {
  const { registry, estimator, registryPort, socketPath } = peers;
  // One request, then held open (priority pool) until the hold ends.
  const holdEstimateStream = async () => {
    const signal = AbortSignal.timeout(STREAM_HOLD_MS);
    async function* requests() {
      yield { requestId: "flood", estimate: ESTIMATE_REQUEST };
      await new Promise((resolve) => signal.addEventListener("abort", resolve));
    }
    for await (const _ of estimator.client.estimateStream(requests(), { signal })) void _;
  };
  const drainWatch = async () => {
    for await (const _ of registry.client.watchModels({}, { signal: AbortSignal.timeout(STREAM_HOLD_MS) })) void _;
  };
  return {
    "gRPC unary (ListModels)": async () => void (await registry.client.listModels({})),
    "gRPC unary (Estimate)": async () => void (await estimator.client.estimate(ESTIMATE_REQUEST)),
    "gRPC stream (EstimateStream, held 10 s)": () =>
      holdEstimateStream().catch((error: unknown) => {
        if (error instanceof ClientError && error.code === Status.RESOURCE_EXHAUSTED) throw error;
      }),
    "gRPC stream (WatchModels, held 10 s)": () =>
      drainWatch().catch((error: unknown) => {
        if (error instanceof ClientError && error.code === Status.RESOURCE_EXHAUSTED) throw error;
      }),
    "HTTP (GET /best-models)": () => httpGet(registryPort, "/best-models"),
    "socket (Kepler request)": async () =>
      (JSON.parse((await keplerSidecarCall(socketPath, KEPLER_IDLE)).allBytes) as { msg: string }).msg !== "",
  };
}
