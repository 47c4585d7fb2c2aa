// The estimator bench's two loads on one Estimate server: unary calls from n clients (one channel each,
// every client waiting for its answer before the next call) and one EstimateStream per client with every
// request sent at once.
import { createEstimatorClient } from "../../services/estimator/client.js";
import { type EstimateRequest } from "../../services/generated/kepler/model/v1/estimator_service.js";

/** Called right before and right after the timed part of a case (e.g. to read a server's CPU time). */
export interface TimedPart {
  start(): void;
  stop(): void;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Unary Estimate calls: latency p50/p99 in ms, calls and rows per second. */
export async function runCase(
  address: string,
  request: EstimateRequest,
  clients: number,
  callsPerClient: number,
  timed?: TimedPart,
) {
  const channels = Array.from({ length: clients }, () => createEstimatorClient(address));
  for (const c of channels) for (let i = 0; i < 5; i++) await c.client.estimate(request); // warm-up: connect, load the model
  const latencies: number[] = [];
  timed?.start();
  const start = performance.now();
  await Promise.all(
    channels.map(async (c) => {
      for (let i = 0; i < callsPerClient; i++) {
        const t0 = performance.now();
        await c.client.estimate(request);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  timed?.stop();
  for (const c of channels) c.close();
  latencies.sort((a, b) => a - b);
  const calls = clients * callsPerClient;
  return {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    callsPerSecond: calls / seconds,
    rowsPerSecond: (calls * request.rowCount) / seconds,
  };
}

/** Messages per second over one EstimateStream per client, every request sent at once (a collector's pace is one per tick). */
export async function runStreamCase(
  address: string,
  request: EstimateRequest,
  clients: number,
  messagesPerClient: number,
  timed?: TimedPart,
): Promise<number> {
  const channels = Array.from({ length: clients }, () => createEstimatorClient(address));
  const send = (count: number) =>
    (async function* () {
      for (let i = 0; i < count; i++) yield { requestId: String(i), estimate: request };
    })();
  for (const c of channels) for await (const _ of c.client.estimateStream(send(5))); // warm-up
  timed?.start();
  const start = performance.now();
  await Promise.all(
    channels.map(async (c) => {
      let answered = 0;
      for await (const response of c.client.estimateStream(send(messagesPerClient))) {
        if (response.result?.$case !== "estimate") throw new Error(`stream item failed: ${JSON.stringify(response.result)}`);
        answered++;
      }
      if (answered !== messagesPerClient) throw new Error(`${answered} of ${messagesPerClient} answered`);
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  timed?.stop();
  for (const c of channels) c.close();
  return (clients * messagesPerClient) / seconds;
}
