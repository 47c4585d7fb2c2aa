// Refusals at a full pool (bench/overload): each admission pool is filled with calls that stay open
// (POST /model bodies that never finish, WatchModels streams, EstimateStream streams), then excess calls
// on every door of that pool are sent one at a time, so each refusal's time is the server's answer alone
// (no client-side queue in front of it), while a client on another pool times its admitted calls
// beside them against the same calls unloaded. The server's RSS is sampled before, at its peak and after.
// Found here: an HTTP call queued for a slot whose client disconnects is still admitted later and then
// holds its slot (its body never ends), so destroying the queued stalled POSTs wedged the calls pool.
import { setMaxListeners } from "node:events";
import { connect, type Socket } from "node:net";
import type { EstimatorServiceDefinition } from "../../services/generated/kepler/model/v1/estimator_service.js";
import type { RegistryServiceDefinition } from "../../services/generated/kepler/model/v1/registry_service.js";
import type { PeerClient } from "../../services/kit/transport/grpc-client.js";
import { type Outcome, timed } from "./flood-doors.js";

export interface HeldPoolPeers {
  registry: PeerClient<typeof RegistryServiceDefinition>;
  estimator: PeerClient<typeof EstimatorServiceDefinition>;
  registryPort: number;
  estimate: () => Promise<unknown>;
  /** The Estimate request `estimate` sends, for EstimateStream. */
  estimateRequest: Parameters<PeerClient<typeof EstimatorServiceDefinition>["client"]["estimate"]>[0];
  /** The other doors, as flood-doors.ts times them (true when refused in band). */
  doors: Record<string, () => Promise<boolean | void>>;
}

export interface HeldPoolResult {
  pool: string;
  held: number;
  door: string;
  outcomes: Outcome[];
  besideName: string;
  besideUnloaded: number[];
  besideLoaded: number[];
}

const PROBES = 100;
// p99 of fewer samples is the second-worst call: 300 make it a percentile.
const BESIDE = 300;

// An HTTP POST whose body never completes: it holds a call slot (admission runs before the body is read).
export function stalledPost(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => {
      socket.write("POST /model HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{");
      resolve(socket);
    });
    socket.on("error", reject);
  });
}

/** A stream held open until `signal` aborts; resolves once the server has admitted it (or rejects). */
export function heldEstimateStream(peers: HeldPoolPeers, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    async function* requests() {
      yield { requestId: "hold", estimate: peers.estimateRequest };
      await new Promise((done) => signal.addEventListener("abort", done));
    }
    void (async () => {
      try {
        for await (const _ of peers.estimator.client.estimateStream(requests(), { signal })) resolve();
      } catch (error) {
        if (!signal.aborted) reject(error as Error);
      }
    })();
  });
}

export function heldWatch(peers: HeldPoolPeers, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    void (async () => {
      try {
        for await (const _ of peers.registry.client.watchModels({}, { signal })) resolve();
      } catch (error) {
        if (!signal.aborted) reject(error as Error);
      }
    })();
  });
}

async function sequential(call: () => Promise<unknown>, count: number, more = () => false): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count || more(); i++) {
    const start = performance.now();
    await call();
    samples.push(performance.now() - start);
  }
  return samples;
}

/** Fills each pool, probes its doors and times a call of another pool beside them. */
export async function refusalsAtFullPools(
  peers: HeldPoolPeers,
  limits: { maxCalls: number; maxQueuedCalls: number; maxStreams: number; maxPriorityCalls: number },
): Promise<HeldPoolResult[]> {
  const listModels = () => peers.registry.client.listModels({});
  const results: HeldPoolResult[] = [];
  const refusedStream = (open: (signal: AbortSignal) => Promise<void>) => async () => {
    const controller = new AbortController();
    try {
      await open(controller.signal);
    } finally {
      controller.abort();
    }
  };
  const pools: Array<{
    pool: string;
    held: number;
    hold: (signal: AbortSignal) => Promise<unknown>;
    doors: Record<string, () => Promise<boolean | void>>;
    besideName: string;
    beside: () => Promise<unknown>;
  }> = [
    {
      pool: "registry calls (POST /model bodies stalled)",
      held: limits.maxCalls + limits.maxQueuedCalls,
      hold: async (signal) => {
        const socket = await stalledPost(peers.registryPort);
        // The body is finished (a 400 answer) rather than the socket destroyed: a queued HTTP call whose
        // client is gone keeps its slot once admitted (found by this bench; see the file comment).
        signal.addEventListener("abort", () => socket.end(" ".repeat(999)));
        socket.on("data", () => socket.destroy());
      },
      doors: {
        "gRPC unary ListModels": async () => void (await listModels()),
        "HTTP GET /best-models": peers.doors["HTTP (GET /best-models)"]!,
      },
      besideName: "Estimate",
      beside: peers.estimate,
    },
    {
      pool: "registry streams (WatchModels held)",
      held: limits.maxStreams,
      hold: (signal) => heldWatch(peers, signal),
      doors: { "gRPC stream WatchModels": refusedStream((signal) => heldWatch(peers, signal)) },
      besideName: "ListModels",
      beside: listModels,
    },
    {
      // Streams take at most half the priority slots (admission.ts): the other half keeps unary Estimate,
      // health and Kepler's socket answering (their refusal past the whole pool shows in the floods).
      pool: "estimator priority (EstimateStream held, the streams' half)",
      held: Math.floor(limits.maxPriorityCalls / 2),
      hold: (signal) => heldEstimateStream(peers, signal),
      doors: { "gRPC stream EstimateStream": refusedStream((signal) => heldEstimateStream(peers, signal)) },
      besideName: "Estimate",
      beside: peers.estimate,
    },
  ];
  for (const pool of pools) {
    const besideUnloaded = await sequential(pool.beside, BESIDE);
    const controller = new AbortController();
    setMaxListeners(3 * pool.held + 10, controller.signal);
    // One at a time: the admitted ones first, then the queued ones (registry calls) wait their turn.
    const holds: Array<Promise<unknown>> = [];
    for (let i = 0; i < pool.held; i++) holds.push(pool.hold(controller.signal).catch(() => undefined));
    await Promise.race([Promise.all(holds), new Promise((resolve) => setTimeout(resolve, 2000))]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    try {
      for (const [door, call] of Object.entries(pool.doors)) {
        const outcomes: Outcome[] = [];
        // The call beside runs for as long as the probes do (BESIDE calls at least).
        let probing = true;
        const besideLoaded = sequential(pool.beside, BESIDE, () => probing);
        for (let i = 0; i < PROBES; i++) outcomes.push(await timed(call));
        probing = false;
        results.push({
          pool: pool.pool,
          held: pool.held,
          door,
          outcomes,
          besideName: pool.besideName,
          besideUnloaded,
          besideLoaded: await besideLoaded,
        });
      }
    } finally {
      controller.abort();
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return results;
}
