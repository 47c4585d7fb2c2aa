// The estimator against the transport floor: a bare grpc-js server (floor-server.ts) answering with the
// estimator's own responses (same message sizes), runs interleaved, median calls/s of 7 rounds each (issue
// goal: the estimator within 1.3x of the floor). With --baseline=<dir> the baseline checkout's estimator is
// a third contender in the same rounds, so this checkout and the baseline are compared under the same load
// (run-to-run noise on a shared machine is far larger than the differences looked for).
// A round lasts about half a second or more: shorter ones swing with a single garbage collection. The
// order of the contenders rotates by one each round. Each case first runs 3 untimed rounds on every
// server: the throughput asked for is a warm server's, and the estimator, with more code on the path than
// the floor, is optimised by V8 later (its first 2,000 calls ran 1.2-2.4x slower than its steady state).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createEstimatorClient } from "../../services/estimator/client.js";
import { EstimateResponse } from "../../services/generated/kepler/model/v1/estimator_service.js";
import { processCpuNs } from "../support/process-cpu.js";
import { formatRatioSpread, median, perRoundRatios, roundOrder, roundsFlag } from "../support/interleave.js";
import { printTable } from "../support/measure.js";
import { estimateRequest } from "./bench-servers.js";
import { runCase, runStreamCase, type TimedPart } from "./load-cases.js";

// `--rounds=N` asks for more timed rounds (a narrower median on a noisy machine).
const ROUNDS = roundsFlag(process.argv) ?? 7;
const WARM_UP_ROUNDS = 3;
const ROW_COUNTS = [1, 100] as const;

/** The baseline checkout's estimator, served by its own `kepler-model serve registry estimator`. */
export interface BaselineEstimator {
  readonly address: string;
  readonly pid: number;
  /** How the output names it: its folder, commit, and whether it ran its bundle. */
  readonly description: string;
}

/** Encoded EstimateResponse of each row count, as the estimator at `address` answers the bench's request. */
async function recordResponses(address: string): Promise<Map<number, EstimateResponse>> {
  const channel = createEstimatorClient(address);
  const responses = new Map<number, EstimateResponse>();
  for (const rows of ROW_COUNTS)
    responses.set(rows, await channel.client.estimate(estimateRequest("LinearRegressionTrainer", rows)));
  channel.close();
  return responses;
}

const encodedBytes = (response: EstimateResponse) => EstimateResponse.encode(response).finish().byteLength;

// The floor answers with this checkout's responses (one per row count), recorded to a file.
async function startFloor(recorded: Map<number, EstimateResponse>): Promise<{ child: ChildProcess; address: string }> {
  const base64 = Object.fromEntries(
    [...recorded].map(([rows, response]) => [rows, Buffer.from(EstimateResponse.encode(response).finish()).toString("base64")]),
  );
  const file = join(await mkdtemp(join(tmpdir(), "bench-floor-")), "responses.json");
  await writeFile(file, JSON.stringify(base64));
  const script = new URL("./floor-server.ts", import.meta.url).pathname;
  const child = spawn(process.execPath, ["--import", "tsx", script, file], { stdio: ["ignore", "pipe", "inherit"] });
  child.on("exit", () => void rm(dirname(file), { recursive: true, force: true }));
  let output = "";
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (data: Buffer) => {
      output += data.toString();
      const found = /listening (\d+)/.exec(output)?.[1];
      if (found !== undefined) resolve(found);
    });
    child.on("exit", (code) => reject(new Error(`floor server exited (${code}): ${output}`)));
  });
  return { child, address: `127.0.0.1:${port}` };
}

/** A server under test: where it answers and its process, whose CPU time is read around each timed part. */
interface Server {
  readonly address: string;
  readonly pid: number;
}

/** One timed part on one server: calls (or stream messages) per second, and the server's CPU microseconds per call. */
interface Sample {
  readonly callsPerSecond: number;
  readonly cpuMicrosPerCall: number;
}

/** One timed case on `server`; `timed` brackets its timed part. Returns calls/s and how many calls were timed. */
type OneCase = (address: string, timed: TimedPart) => Promise<{ callsPerSecond: number; calls: number }>;

/** Samples of every server per timed round (results[i][round] belongs to servers[i]), warm-up rounds first. */
async function interleavedRounds(servers: readonly Server[], once: OneCase): Promise<Sample[][]> {
  const results = servers.map((): Sample[] => []);
  const indices = servers.map((_, index) => index);
  for (let round = -WARM_UP_ROUNDS; round < ROUNDS; round++) {
    for (const index of roundOrder(indices, round)) {
      const server = servers[index]!;
      let cpuNs = 0;
      const timed = { start: () => (cpuNs = -processCpuNs(server.pid)), stop: () => (cpuNs += processCpuNs(server.pid)) };
      const { callsPerSecond, calls } = await once(server.address, timed);
      if (round >= 0) results[index]!.push({ callsPerSecond, cpuMicrosPerCall: cpuNs / 1000 / calls });
    }
  }
  return results;
}

/**
 * One printed row: [floor, estimator] calls/s, or with --baseline [floor, this checkout, baseline, the
 * baseline's floor] (each floor answering with its estimator's own responses).
 */
function tableRow(call: string, rows: number, clients: number, samples: readonly Sample[][]): string[] {
  const [floor, ours, baseline, baselineFloor] = samples.map((server) => server.map((sample) => sample.callsPerSecond));
  const cells = [call, String(rows), String(clients), median(floor!).toFixed(0), median(ours!).toFixed(0)];
  if (baseline === undefined) return [...cells, (median(floor!) / median(ours!)).toFixed(2)];
  const [oursCpu, baselineCpu] = samples.slice(1).map((server) => server.map((sample) => sample.cpuMicrosPerCall));
  return [
    ...cells,
    median(baseline).toFixed(0),
    (median(floor!) / median(ours!)).toFixed(2),
    (median(baselineFloor!) / median(baseline)).toFixed(2),
    // Each checkout's distance from the floor of its own answers, per round: the cost of the code on the
    // path with the answers' size taken out.
    formatRatioSpread(
      perRoundRatios(
        floor!.map((value, round) => value / ours![round]!),
        baselineFloor!.map((value, round) => value / baseline[round]!),
      ),
    ),
    formatRatioSpread(perRoundRatios(ours!, baseline)),
    median(oursCpu!).toFixed(0),
    median(baselineCpu!).toFixed(0),
    formatRatioSpread(perRoundRatios(baselineCpu!, oursCpu!)),
  ];
}

/** The baseline's answers beside ours: message sizes, whether either carries interval bounds, whether the watts agree. */
function compareAnswers(ours: Map<number, EstimateResponse>, baseline: Map<number, EstimateResponse>): string {
  const watts = (response: EstimateResponse) => JSON.stringify(response.componentPowers.map((c) => [c.component, c.powerWatts]));
  const bounded = (answers: Map<number, EstimateResponse>) =>
    [...answers.values()].some((response) => response.componentPowers.some((c) => c.lowerWatts.length > 0));
  const sizes = ROW_COUNTS.map(
    (rows) => `${rows} row(s): HEAD ${encodedBytes(ours.get(rows)!)} B, baseline ${encodedBytes(baseline.get(rows)!)} B`,
  );
  const same = ROW_COUNTS.every((rows) => watts(ours.get(rows)!) === watts(baseline.get(rows)!));
  const intervals = bounded(ours)
    ? "HEAD's carry interval bounds (issue 31)"
    : "neither carries interval bounds (the bench models store no calibration residuals)";
  const sameSize = ROW_COUNTS.every((rows) => encodedBytes(ours.get(rows)!) === encodedBytes(baseline.get(rows)!));
  // A baseline from before issue 31 answers with a shorter selection.
  const sizeNote = sameSize
    ? "same sizes"
    : "the sizes differ (a baseline before issue 31 has no selection reasons or node-type similarity)";
  return `Estimate answers: ${sizes.join("; ")}; ${intervals}; ${sizeNote}; component watts ${same ? "identical" : "DIFFERENT"}`;
}

export async function transportFloor(estimator: Server, baseline?: BaselineEstimator): Promise<void> {
  const ours = await recordResponses(estimator.address);
  const baselineAnswers = baseline === undefined ? undefined : await recordResponses(baseline.address);
  if (baseline !== undefined) {
    console.log(`\nbaseline: ${baseline.description}`);
    console.log(compareAnswers(ours, baselineAnswers!));
  }
  const floor = await startFloor(ours);
  const baselineFloor = baselineAnswers === undefined ? undefined : await startFloor(baselineAnswers);
  try {
    const servers = [
      { address: floor.address, pid: floor.child.pid! },
      estimator,
      ...(baseline === undefined || baselineFloor === undefined
        ? []
        : [baseline, { address: baselineFloor.address, pid: baselineFloor.child.pid! }]),
    ];
    const rows: string[][] = [];
    for (const n of ROW_COUNTS) {
      for (const clients of [1, 16]) {
        const request = estimateRequest("LinearRegressionTrainer", n);
        const calls = clients === 1 ? 600 : 60;
        const streamed = clients === 1 ? 10_000 : 1_000;
        const unary = await interleavedRounds(servers, async (address, timed) => ({
          callsPerSecond: (await runCase(address, request, clients, calls, timed)).callsPerSecond,
          calls: clients * calls,
        }));
        rows.push(tableRow("unary", n, clients, unary));
        const stream = await interleavedRounds(servers, async (address, timed) => ({
          callsPerSecond: await runStreamCase(address, request, clients, streamed, timed),
          calls: clients * streamed,
        }));
        rows.push(tableRow("stream", n, clients, stream));
      }
    }
    if (baseline === undefined) {
      printTable(
        `Estimate against the transport floor (bare grpc-js, same message sizes; interleaved, median of ${ROUNDS} rounds)`,
        ["call", "rows/call", "clients", "floor calls/s", "estimator calls/s", "floor/estimator"],
        rows,
      );
      return;
    }
    printTable(
      `Estimate: transport floor, this checkout (HEAD) and the baseline in one run (interleaved, order rotated per round, median of ${ROUNDS} rounds).\n` +
        `Two floors (bare grpc-js): one answers with HEAD's responses, one with the baseline's (sizes above); floor/HEAD and\n` +
        `floor/baseline each use their own. HEAD/baseline floor ratio: per-round (floor/HEAD) / (floor/baseline), the code\n` +
        `on the path compared with the answers' size taken out (1 = unchanged, above 1 = HEAD further from its floor).\n` +
        `HEAD/baseline: median of the per-round calls/s ratios (lowest-highest round). CPU us/call: the server process's CPU\n` +
        `time (all threads) per call; HEAD/baseline calls per CPU s: per-round ratio of the baseline's CPU per call to HEAD's,\n` +
        `less swayed by other load on the machine than calls/s`,
      [
        ...["call", "rows/call", "clients", "floor calls/s", "HEAD calls/s", "baseline calls/s", "floor/HEAD", "floor/baseline"],
        "HEAD/baseline floor ratio",
        ...["HEAD/baseline calls/s", "HEAD CPU us/call", "baseline CPU us/call", "HEAD/baseline calls per CPU s"],
      ],
      rows,
    );
  } finally {
    for (const { child } of baselineFloor === undefined ? [floor] : [floor, baselineFloor]) {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.on("exit", resolve));
    }
  }
}
