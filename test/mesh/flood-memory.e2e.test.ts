// End-to-end, memory under a flood (issue 34): `kepler-model serve` with 4 priority slots, all held by
// EstimateStreams, takes three rounds of 600 Estimate calls (50 at a time), 20 EstimateStreams and 100
// Kepler socket requests. Every one is refused (RESOURCE_EXHAUSTED; the socket's busy reply), the
// server's RSS after the third round is within 48 MiB of its RSS after the first (a refusal keeps
// nothing), and once the held streams end Estimate is admitted again. Latency under a flood is measured
// by `npm run bench -- overload`, not here.
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClientError, Status } from "nice-grpc";
import { afterEach, describe, expect, it } from "vitest";
import { createEstimatorClient } from "../../services/estimator/client.js";
import type { RunningChild } from "../support/child-process.js";
import { bareEstimateRequest } from "../support/bare-estimate-request.js";
import { keplerSidecarCall } from "../support/kepler-sidecar-client.js";
import { spawnServe } from "../support/serve-child.js";

const PRIORITY_SLOTS = 4;
const ROUNDS = 3;
const ESTIMATES_PER_ROUND = 600;
const BUSY_REPLY = `{"powers": {}, "msg": "server busy: ${PRIORITY_SLOTS} estimates running; retry later"}`;
const KEPLER_REQUEST =
  '{"metrics":["bpf_cpu_time_ms"],"values":[[10]],"output_type":"AbsPower","source":"intel_rapl","system_features":[],"system_values":[],"trainer_name":"","filter":""}';
const REQUEST = bareEstimateRequest(["bpf_cpu_time_ms"], Float64Array.of(10));

let dir: string | undefined;
const children: RunningChild[] = [];
afterEach(async () => {
  for (const { child } of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) / 1024;

async function* oneRequest() {
  yield { requestId: "excess", estimate: REQUEST };
}

/** The status a call ended with ("OK" when it was answered). */
async function statusOf(call: () => Promise<unknown>): Promise<string> {
  try {
    await call();
    return "OK";
  } catch (error) {
    if (error instanceof ClientError) return Status[error.code]!;
    throw error;
  }
}

describe("a flood of refused calls", () => {
  it("is refused on every door with its code and leaves the server's memory flat", async () => {
    dir = await mkdtemp(join(tmpdir(), "flood-memory-"));
    const socketPath = join(dir, "estimator.sock");
    const { serve, addresses } = await spawnServe(
      children,
      [
        ...["--model-path", join(dir, "models"), "--estimator-socket", socketPath],
        // Streams may take every priority slot here (by default they take at most half).
        ...["--max-priority-calls", String(PRIORITY_SLOTS), "--max-priority-streams", String(PRIORITY_SLOTS)],
      ],
      60_000,
    );
    const estimator = createEstimatorClient(addresses.estimator!);
    // Hold every priority slot: a stream that sent one request and stays open.
    const hold = new AbortController();
    const held = Array.from({ length: PRIORITY_SLOTS }, async () => {
      async function* requests() {
        yield { requestId: "hold", estimate: REQUEST };
        await new Promise((resolve) => hold.signal.addEventListener("abort", resolve));
      }
      const responses = estimator.client.estimateStream(requests(), { signal: hold.signal })[Symbol.asyncIterator]();
      return (await responses.next()).value;
    });
    // Each held stream got its answer (an error for want of a model: admitted all the same).
    for (const answer of await Promise.all(held)) expect(answer?.requestId).toBe("hold");

    const rssAfterRound: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const statuses = new Map<string, number>();
      const count = (status: string) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
      for (let start = 0; start < ESTIMATES_PER_ROUND; start += 50)
        for (const status of await Promise.all(
          Array.from({ length: 50 }, () => statusOf(() => estimator.client.estimate(REQUEST))),
        ))
          count(status);
      for (let i = 0; i < 20; i++)
        count(
          await statusOf(async () => {
            const stream = estimator.client.estimateStream(oneRequest());
            for await (const _ of stream) void _;
          }),
        );
      for (let i = 0; i < 100; i++) {
        const reply = await keplerSidecarCall(socketPath, KEPLER_REQUEST);
        count(reply.allBytes === BUSY_REPLY ? "socket busy" : reply.allBytes);
      }
      expect(Object.fromEntries(statuses)).toEqual({ RESOURCE_EXHAUSTED: ESTIMATES_PER_ROUND + 20, "socket busy": 100 });
      await new Promise((resolve) => setTimeout(resolve, 500));
      rssAfterRound.push(rssMiB(serve.child.pid!));
    }
    console.info(`server RSS after each round, MiB: ${rssAfterRound.map((v) => v.toFixed(0)).join(", ")}`);
    expect(rssAfterRound.at(-1)! - rssAfterRound[0]!).toBeLessThan(48);

    hold.abort();
    // The slots come back: Estimate is admitted (and fails for want of a model).
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await statusOf(() => estimator.client.estimate(REQUEST))).not.toBe("RESOURCE_EXHAUSTED");
    estimator.close();
  }, 180_000);
});
