// Overload (issue 34): a registry and estimator (`kepler-model serve registry estimator`, a separate
// process, tight admission limits) flooded on each door past its limits. First, what one request on a
// fresh connection costs the server, answered or refused (connection-cost.ts). Per flood: how many calls were
// admitted and refused, how fast a refusal came back (p50/p99/max, timed by the flooding client, so its
// own queue of FLOOD calls is included), the p99 of the admitted calls and of Estimate running beside the
// flood (from this process, one at a time for the whole flood, after the flooding process has connected)
// against the same calls unloaded, and the server's RSS before and at its peak (sampled from /proc
// every 10 ms). ListModels, Estimate, GET /best-models and a loaded model's socket estimate are answered
// within the turn their request arrives, so however many arrive, few hold a slot at once: their rows show
// what a flood of fast calls costs (queueing in the client and on the CPU), the stream rows what happens
// past a limit. Then each pool is filled with held calls and excess calls are sent one at a time
// (held-pools.ts: the refusal's own latency, a call of another pool beside it, RSS before/peak/after);
// then 64 clients trickling bytes into the Kepler socket while real Kepler requests are timed. Then, on a
// server of its own, sustained floods at full pools: every door flooded open loop past its pool's limit by
// a light client, and bursts of 400 refused calls on one connection against a bare node:http2 refuser
// (sustained-floods.ts, burst-floor.ts).
//   npm run bench -- overload [--rounds=N] [--pin-server] [--flood-rate=N]
// --rounds: floods per fast door (default 3); --pin-server: the servers on CPU 0, the clients on the others
// (bench-processes.ts); --flood-rate: calls per second of each sustained flood (default 500).
import { mkdtemp, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEstimatorClient } from "../../services/estimator/client.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { keplerSidecarCall } from "../../test/support/kepler-sidecar-client.js";
import { bpfLinearSpec, buildTestArchive, publishTestArchive } from "../../test/support/model-archives.js";
import { ms, printTable } from "../support/measure.js";
import { admissionCost } from "./admission-cost.js";
import { floodChild, pinBench, quantile, rssMiB, startServe, withPeakRss } from "./bench-processes.js";
import { roundsFlag } from "../support/interleave.js";
import { processCpuNs } from "../support/process-cpu.js";
import { connectionCost } from "./connection-cost.js";
import { ESTIMATE_REQUEST, FLOOD, KEPLER_IDLE, type Outcome, createDoors, httpGet, timed } from "./flood-doors.js";
import { refusalsAtFullPools } from "./held-pools.js";
import { separateEstimator } from "./separate-estimator.js";
import { sustainedFloods } from "./sustained-floods.js";

const LIMIT_VALUES = { maxCalls: 8, maxQueuedCalls: 8, maxStreams: 16, maxPriorityCalls: 64 };
const LIMITS = ["--max-calls", "8", "--max-queued-calls", "8", "--max-calls-per-client", "0", "--max-streams", "16"];
// Queued calls wait long enough for the held-pool probes to run behind them.
const LIMIT_FLAGS = [...LIMITS, "--max-streams-per-client", "0", "--max-priority-calls", "64", "--queue-wait-ms", "60000"];
const FEATURES = ESTIMATE_REQUEST.featureNames;
const FLOOD_REPEATS = 3;
const SUSTAINED_RATE = 500;

function floodRateFlag(argv: readonly string[]): number {
  const value = argv.find((arg) => arg.startsWith("--flood-rate="))?.slice("--flood-rate=".length);
  if (value === undefined) return SUSTAINED_RATE;
  const rate = Number(value);
  if (!Number.isInteger(rate) || rate < 1) throw new Error(`--flood-rate must be a positive integer, got ${value}`);
  return rate;
}

// The model every Estimate of the bench reads.
const publishBenchModel = (registry: ReturnType<typeof createRegistryClient>) =>
  publishTestArchive(registry, buildTestArchive(bpfLinearSpec("bench", [10, 5, 2, 1], { features: FEATURES })));

export default async function run(): Promise<void> {
  const layout = pinBench();
  const repeats = roundsFlag(process.argv) ?? FLOOD_REPEATS;
  const floodRate = floodRateFlag(process.argv);
  await admissionCost();
  const dir = await mkdtemp(join(tmpdir(), "bench-overload-"));
  try {
    const socketPath = join(dir, "estimator.sock");
    const serve = await startServe(
      ["registry", "estimator"],
      [...["--model-path", join(dir, "models"), "--estimator-socket", socketPath], ...LIMIT_FLAGS],
    );
    const servers = { child: serve.child, registry: serve.addresses.registry!, estimator: serve.addresses.estimator! };
    const registry = createRegistryClient(servers.registry);
    const estimator = createEstimatorClient(servers.estimator);
    const registryPort = Number(servers.registry.split(":").at(-1));
    try {
      await publishBenchModel(registry);
      const estimateRequest = ESTIMATE_REQUEST;
      const estimate = () => estimator.client.estimate(estimateRequest);
      const estimateLatencies = async (count: number): Promise<number[]> => {
        const samples: number[] = [];
        for (let i = 0; i < count; i++) samples.push((await timed(async () => void (await estimate()))).ms);
        return samples;
      };
      const doors = createDoors({ registry, estimator, registryPort, socketPath });
      await connectionCost(servers.child.pid!, {
        "HTTP GET /best-models (answered)": doors["HTTP (GET /best-models)"]!,
        "HTTP GET /no-such-route (404)": () => httpGet(registryPort, "/no-such-route"),
        "socket Kepler request (answered)": doors["socket (Kepler request)"]!,
        "socket request refused (output_type Watts)": () =>
          keplerSidecarCall(socketPath, KEPLER_IDLE.replace('"AbsPower"', '"Watts"')),
        "gRPC Estimate (one open connection)": estimate,
      });
      await estimateLatencies(200);
      // 1,000 samples: a p99 of a few hundred is its third-highest value and swings run to run.
      const unloadedEstimate = quantile(await estimateLatencies(1000), 0.99);
      const rows: string[][] = [];
      const dropReasons: string[] = [];
      for (const [door, call] of Object.entries(doors)) {
        const unloaded: number[] = [];
        for (let i = 0; i < (door.includes("stream") ? 3 : 50); i++) unloaded.push((await timed(call)).ms);
        // A flood of fast calls lasts a fraction of a second, so one p99 beside it swings with the machine:
        // those floods run `repeats` times (a fresh flooding process each); the row pools their samples and
        // lists each flood's Estimate ratio. Estimate is sampled only while the flood lasts (from its start
        // to the flooding process's last outcome), so quiet samples after it do not dilute the p99.
        const runs = door.includes("stream") ? 1 : repeats;
        const pooled = {
          admitted: [] as number[],
          refused: [] as number[],
          dropped: 0,
          ratios: [] as number[],
          besideMs: [] as number[],
          beside: 0,
          clientCpuMs: 0,
          serverCpuMs: 0,
        };
        let [beforeMiB, peakMiB] = [Number.POSITIVE_INFINITY, 0];
        for (let repeat = 0; repeat < runs; repeat++) {
          const flood = await floodChild(door, servers.registry, socketPath, servers.estimator);
          const measured = await withPeakRss(servers.child, async () => {
            // Estimate from this process, one call at a time for as long as the flood lasts.
            let flooding = true;
            const serverCpuBefore = processCpuNs(servers.child.pid!);
            const flooded = flood.go().finally(() => (flooding = false));
            const beside: Outcome[] = [];
            while (flooding) beside.push(await timed(async () => void (await estimate())));
            return { ...(await flooded), beside, serverCpuMs: (processCpuNs(servers.child.pid!) - serverCpuBefore) / 1e6 };
          });
          const { outcomes, beside, cpuMs, serverCpuMs } = measured.result;
          pooled.clientCpuMs += cpuMs;
          pooled.serverCpuMs += serverCpuMs;
          [beforeMiB, peakMiB] = [Math.min(beforeMiB, measured.beforeMiB), Math.max(peakMiB, measured.peakMiB)];
          pooled.refused.push(...outcomes.filter((o) => o.refused).map((o) => o.ms));
          pooled.admitted.push(...outcomes.filter((o) => o.ok).map((o) => o.ms));
          pooled.dropped += outcomes.filter((o) => !o.ok && !o.refused).length;
          pooled.besideMs.push(...beside.map((o) => o.ms));
          pooled.ratios.push(
            quantile(
              beside.map((o) => o.ms),
              0.99,
            ) / unloadedEstimate,
          );
          pooled.beside += beside.filter((o) => !o.ok).length;
          const errors = [...new Set(outcomes.flatMap((o) => (o.error === undefined ? [] : [o.error.slice(0, 80)])))];
          if (errors.length > 0) dropReasons.push(`${door}: ${errors.slice(0, 3).join(" | ")}`);
        }
        const { refused } = pooled;
        rows.push([
          door,
          String(runs),
          String(pooled.admitted.length),
          String(refused.length),
          String(pooled.dropped),
          `${ms(quantile(refused, 0.5))} / ${ms(quantile(refused, 0.99))} / ${ms(refused.length === 0 ? Number.NaN : Math.max(...refused))}`,
          `${ms(quantile(unloaded, 0.99))} -> ${ms(quantile(pooled.admitted, 0.99))}`,
          `${(pooled.clientCpuMs / (runs * FLOOD)).toFixed(2)} / ${(pooled.serverCpuMs / (runs * FLOOD)).toFixed(2)}`,
          `${ms(quantile(pooled.besideMs, 0.99))}, ${(quantile(pooled.besideMs, 0.99) / unloadedEstimate).toFixed(2)}x (n=${pooled.besideMs.length}; each flood ${pooled.ratios.map((r) => r.toFixed(2)).join(" ")})${pooled.beside > 0 ? `, ${pooled.beside} not answered` : ""}`,
          `${beforeMiB.toFixed(0)} -> ${peakMiB.toFixed(0)}`,
        ]);
      }
      printTable(
        `Floods of ${FLOOD} concurrent calls per door (${layout}; limits: ${LIMIT_FLAGS.join(" ")}); times in ms; Estimate unloaded p99 ${ms(unloadedEstimate)}`,
        [
          "door",
          "floods",
          "admitted",
          "refused",
          "dropped",
          "refusal p50/p99/max",
          "door p99 unloaded -> admitted",
          "CPU ms per flood call: flooder / server (Estimate beside included)",
          "Estimate p99 beside the floods, / unloaded (samples; each flood's ratio)",
          "RSS MiB before -> peak",
        ],
        rows,
      );
      for (const reason of dropReasons) process.stdout.write(`dropped: ${reason}\n`);

      const held = await withPeakRss(servers.child, () =>
        refusalsAtFullPools({ registry, estimator, registryPort, estimate, estimateRequest, doors }, LIMIT_VALUES),
      );
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const afterMiB = rssMiB(servers.child.pid!);
      printTable(
        "Refusals at a full pool: the pool's slots held open, then 100 excess calls per door one at a time (times in ms)",
        ["pool (calls held)", "door", "refused/sent", "refusal p50/p99/max", "beside: call p99 unloaded -> held (ratio)"],
        held.result.map((r) => {
          const refused = r.outcomes.filter((o) => o.refused).map((o) => o.ms);
          const [before, loaded] = [quantile(r.besideUnloaded, 0.99), quantile(r.besideLoaded, 0.99)];
          return [
            `${r.pool} (${r.held})`,
            r.door,
            `${refused.length}/${r.outcomes.length}`,
            `${ms(quantile(refused, 0.5))} / ${ms(quantile(refused, 0.99))} / ${ms(refused.length === 0 ? Number.NaN : Math.max(...refused))}`,
            `${r.besideName} ${ms(before)} -> ${ms(loaded)} (${(loaded / before).toFixed(2)}x)`,
          ];
        }),
      );
      process.stdout.write(
        `server RSS over the held pools: ${held.beforeMiB.toFixed(0)} MiB before, ${held.peakMiB.toFixed(0)} peak, ${afterMiB.toFixed(0)} one second after\n`,
      );

      // 64 clients trickling bytes into the socket, while real Kepler requests are timed.
      const quiet: number[] = [];
      for (let i = 0; i < 50; i++) quiet.push((await timed(doors["socket (Kepler request)"]!)).ms);
      const stalled = Array.from({ length: 64 }, () => {
        const socket = connect(socketPath);
        socket.on("error", () => undefined);
        let timer: NodeJS.Timeout | undefined;
        socket.on("connect", () => {
          socket.write('{"metrics":[');
          timer = setInterval(() => socket.write(" "), 100);
        });
        socket.on("close", () => clearInterval(timer));
        return { stop: () => (clearInterval(timer), socket.destroy()) };
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      const underStall: Outcome[] = [];
      for (let i = 0; i < 50; i++) underStall.push(await timed(doors["socket (Kepler request)"]!));
      for (const client of stalled) client.stop();
      const answered = underStall.filter((o) => o.ok).map((o) => o.ms);
      printTable(
        "Kepler socket requests with 64 clients trickling a byte every 100 ms (50 sequential requests)",
        ["case", "answered", "p50 ms", "p99 ms", "max ms"],
        [
          ["quiet", String(quiet.length), ms(quantile(quiet, 0.5)), ms(quantile(quiet, 0.99)), ms(Math.max(...quiet))],
          [
            "64 stalled",
            `${answered.length}/50`,
            ms(quantile(answered, 0.5)),
            ms(quantile(answered, 0.99)),
            ms(Math.max(...answered)),
          ],
        ],
      );
    } finally {
      registry.close();
      estimator.close();
      servers.child.kill("SIGTERM");
      await new Promise((resolve) => servers.child.on("exit", resolve));
    }
    await separateEstimator(dir, LIMIT_FLAGS, repeats, async (registry) => void (await publishBenchModel(registry)));
    await sustainedFloods(dir, floodRate, layout, async (registry) => void (await publishBenchModel(registry)));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
