// Sustained floods beyond the limits (bench/overload, issue 34): a server of its own with every pool small,
// one pool at a time filled with calls that stay open, then each door of that pool flooded open loop at
// `rate` calls per second for FLOOD_MS by a light client in its own process (sustained-flood-child.ts),
// so every flood call is an excess call. Reported per door: how many were refused with the transport's
// refusal code, how fast (timed from when each call was due), how far the flooder fell behind, the server
// CPU per call (flood and beside together), a call of another pool timed beside the flood against the same call unloaded, and the
// server's RSS before, one second into the flood, at its end and at its peak (what a refusal keeps shows
// as growth from the first second to the end).
import { setMaxListeners } from "node:events";
import { join } from "node:path";
import { createEstimatorClient } from "../../services/estimator/client.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { ms, printTable } from "../support/measure.js";
import { processCpuNs } from "../support/process-cpu.js";
import { quantile, readyChild, rssMiB, startServe } from "./bench-processes.js";
import { ESTIMATE_REQUEST, KEPLER_IDLE } from "./flood-doors.js";
import { type HeldPoolPeers, heldEstimateStream, heldWatch, stalledPost } from "./held-pools.js";
import { REFUSED } from "./light-doors.js";
import { BURST, burstsAgainstFloor } from "./burst-floor.js";

const FLOOD_MS = 5000;
const LONG_FLOOD_MS = 90_000;
const LONG_SAMPLE_MS = 10_000;
const BESIDE_UNLOADED = 300;
const LIMITS = { calls: 8, queued: 8, streams: 16, priority: 8 };
const FLAGS = [
  ...["--max-calls", String(LIMITS.calls), "--max-queued-calls", String(LIMITS.queued), "--queue-wait-ms", "60000"],
  ...["--max-streams", String(LIMITS.streams), "--max-priority-calls", String(LIMITS.priority)],
  // Streams may take the whole priority pool here, so holding it refuses Estimate and the socket too.
  ...["--max-priority-streams", String(LIMITS.priority)],
  ...["--max-calls-per-client", "0", "--max-streams-per-client", "0"],
];

interface FloodResult {
  outcomes: Array<{ code: string; ms: number }>;
  cpuMs: number;
  maxLagMs: number;
}

async function sequential(call: () => Promise<unknown>, count: number, more = () => false): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count || more(); i++) {
    const start = performance.now();
    await call().catch(() => undefined);
    samples.push(performance.now() - start);
  }
  return samples;
}

// The server's RSS every LONG_SAMPLE_MS over a LONG_FLOOD_MS flood of one door: V8's heap grows for a
// while under any steady load before its collector settles, so a few seconds cannot tell that from a leak.
async function rssOverLongFlood(target: object, rate: number, pid: number): Promise<number[]> {
  const flood = await readyChild<FloodResult>(
    new URL("./sustained-flood-child.ts", import.meta.url),
    [JSON.stringify({ ...target, rate, durationMs: LONG_FLOOD_MS })],
    "long flood",
  );
  const samples = [rssMiB(pid)];
  const sampler = setInterval(() => samples.push(rssMiB(pid)), LONG_SAMPLE_MS);
  try {
    await flood.go();
  } finally {
    clearInterval(sampler);
  }
  return samples;
}

/** Runs the sustained floods against a server of its own under `dir` and prints their table. */
export async function sustainedFloods(
  dir: string,
  rate: number,
  layout: string,
  publishModel: (registry: ReturnType<typeof createRegistryClient>) => Promise<void>,
): Promise<void> {
  const socketPath = join(dir, "sustained.sock");
  const serve = await startServe(
    ["registry", "estimator"],
    [...["--model-path", join(dir, "sustained-models"), "--estimator-socket", socketPath], ...FLAGS],
  );
  const pid = serve.child.pid!;
  const registry = createRegistryClient(serve.addresses.registry!);
  const estimator = createEstimatorClient(serve.addresses.estimator!);
  const registryPort = Number(serve.addresses.registry!.split(":").at(-1));
  const estimate = () => estimator.client.estimate(ESTIMATE_REQUEST);
  const listModels = () => registry.client.listModels({});
  const peers: HeldPoolPeers = {
    registry,
    estimator,
    registryPort,
    estimate,
    estimateRequest: ESTIMATE_REQUEST,
    doors: {},
  };
  const grpc = (address: string, method: string) => ({ door: "grpc", target: address, path: method });
  const pools = [
    {
      pool: `registry calls (${LIMITS.calls + LIMITS.queued} POST /model bodies stalled)`,
      held: LIMITS.calls + LIMITS.queued,
      hold: async (signal: AbortSignal) => {
        const socket = await stalledPost(registryPort);
        signal.addEventListener("abort", () => socket.end(" ".repeat(999)));
        socket.on("data", () => socket.destroy());
      },
      doors: {
        "gRPC unary ListModels": grpc(serve.addresses.registry!, "/kepler.model.v1.RegistryService/ListModels"),
        "HTTP GET /best-models": { door: "http", target: String(registryPort), path: "/best-models" },
      },
      besideName: "Estimate",
      beside: estimate,
      // While this pool is held, every burst call is refused.
      bursts: true,
    },
    {
      pool: `registry streams (${LIMITS.streams} WatchModels held)`,
      held: LIMITS.streams,
      hold: (signal: AbortSignal) => heldWatch(peers, signal),
      doors: { "gRPC stream WatchModels": grpc(serve.addresses.registry!, "/kepler.model.v1.RegistryService/WatchModels") },
      besideName: "ListModels",
      beside: listModels,
    },
    {
      pool: `estimator priority (${LIMITS.priority} EstimateStreams held)`,
      held: LIMITS.priority,
      hold: (signal: AbortSignal) => heldEstimateStream(peers, signal),
      doors: {
        "gRPC unary Estimate": grpc(serve.addresses.estimator!, "/kepler.model.v1.EstimatorService/Estimate"),
        "gRPC stream EstimateStream": grpc(serve.addresses.estimator!, "/kepler.model.v1.EstimatorService/EstimateStream"),
        "socket Kepler request": { door: "socket", target: socketPath, path: "", request: KEPLER_IDLE },
      },
      besideName: "ListModels",
      beside: listModels,
    },
  ];
  const rows: string[][] = [];
  let burstRows: string[][] = [];
  let longFlood: number[] = [];
  try {
    await publishModel(registry);
    for (const pool of pools) {
      const besideUnloaded = await sequential(pool.beside, BESIDE_UNLOADED);
      const controller = new AbortController();
      setMaxListeners(3 * pool.held + 10, controller.signal);
      const holds = Array.from({ length: pool.held }, () => pool.hold(controller.signal).catch(() => undefined));
      await Promise.race([Promise.all(holds), new Promise((resolve) => setTimeout(resolve, 2000))]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      try {
        for (const [door, target] of Object.entries(pool.doors)) {
          const flood = await readyChild<FloodResult>(
            new URL("./sustained-flood-child.ts", import.meta.url),
            [JSON.stringify({ ...target, rate, durationMs: FLOOD_MS })],
            door,
          );
          const cpuBefore = processCpuNs(pid);
          const rss = { before: rssMiB(pid), atOneSecond: Number.NaN, peak: 0, end: 0 };
          const floodStart = performance.now();
          const sampler = setInterval(() => {
            const now = rssMiB(pid);
            rss.peak = Math.max(rss.peak, now);
            if (Number.isNaN(rss.atOneSecond) && performance.now() - floodStart >= 1000) rss.atOneSecond = now;
          }, 10);
          let flooding = true;
          const flooded = flood.go().finally(() => (flooding = false));
          const beside = await sequential(pool.beside, 0, () => flooding);
          const { outcomes, maxLagMs } = await flooded;
          clearInterval(sampler);
          rss.end = rssMiB(pid);
          const serverCpuMs = (processCpuNs(pid) - cpuBefore) / 1e6;
          await new Promise((resolve) => setTimeout(resolve, 1000));
          const refused = outcomes.filter((o) => REFUSED.has(o.code));
          const codes = [...new Set(refused.map((o) => o.code))].join(", ");
          const other = outcomes.filter((o) => !REFUSED.has(o.code));
          const otherCodes = [...new Set(other.map((o) => o.code))].slice(0, 3).join("; ");
          const times = refused.map((o) => o.ms);
          const [before, during] = [quantile(besideUnloaded, 0.99), quantile(beside, 0.99)];
          rows.push([
            pool.pool,
            door,
            String(outcomes.length),
            `${refused.length} (${codes})`,
            other.length === 0 ? "0" : `${other.length} (${otherCodes})`,
            `${ms(quantile(times, 0.5))} / ${ms(quantile(times, 0.99))} / ${ms(times.length === 0 ? Number.NaN : Math.max(...times))}`,
            ms(maxLagMs),
            (serverCpuMs / (outcomes.length + beside.length)).toFixed(3),
            `${pool.besideName} ${ms(before)} -> ${ms(during)} (${(during / before).toFixed(2)}x, n=${beside.length})`,
            [rss.before, rss.atOneSecond, rss.end, Math.max(rss.peak, rss.end)].map((mib) => mib.toFixed(0)).join(" / "),
          ]);
        }
        if ("bursts" in pool) {
          burstRows = await burstsAgainstFloor({ address: serve.addresses.registry!, pid });
          longFlood = await rssOverLongFlood(pool.doors["gRPC unary ListModels"]!, rate, pid);
        }
      } finally {
        controller.abort();
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } finally {
    registry.close();
    estimator.close();
    serve.child.kill("SIGTERM");
    await new Promise((resolve) => serve.child.on("exit", resolve));
  }
  printTable(
    `Sustained floods at full pools (${layout}): each pool's slots held, then every door of it flooded open loop at ${rate} calls/s for ${FLOOD_MS / 1000} s by a light client in its own process; times in ms from when each call was due (limits: ${FLAGS.join(" ")})`,
    [
      "pool (held)",
      "door",
      "sent",
      "refused (code)",
      "other",
      "refusal p50/p99/max",
      "flooder max lag",
      "server CPU ms per call (flood and beside)",
      "beside: p99 unloaded -> during (ratio)",
      "RSS MiB before / at 1 s / end / peak",
    ],
    rows,
  );
  printTable(
    `Bursts of ${BURST} gRPC calls at once on one HTTP/2 connection (light client in this process), all refused; alternating rounds; times in ms from the burst's start`,
    ["server", "refused/sent", "refusal p50 / p99", "server CPU ms per call (median round)", "h2load: mean / max per request"],
    burstRows,
  );
  process.stdout.write(
    `server RSS (MiB) every ${LONG_SAMPLE_MS / 1000} s over ${LONG_FLOOD_MS / 1000} s of gRPC ListModels refused at ${rate} calls/s (calls pool held): ${longFlood.map((mib) => mib.toFixed(0)).join(" ")}\n`,
  );
}
