// Bursts on one connection (bench/overload): BURST gRPC calls sent at once on one HTTP/2 connection by a
// light client, every one refused, against our registry with its calls pool held and against a bare Node
// HTTP/2 server that refuses every stream at once (bare-refuser.ts), in alternating rounds. A refusal in
// a burst comes back after the server has handled the calls ahead of it, so the bare server's times are
// the floor Node's HTTP/2 sets on this machine for any server. The light client costs about as much CPU
// per call as the server, so when h2load (Debian's nghttp2-client, a C client) is installed the same bursts
// are also sent by it, whose own cost is small: its mean and max time per request.
import { spawn, spawnSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { quantile, serverCommand } from "./bench-processes.js";
import { grpcDoor } from "./light-doors.js";
import { processCpuNs } from "../support/process-cpu.js";
import { median } from "../support/interleave.js";
import { ms } from "../support/measure.js";

export const BURST = 400;
const ROUNDS = 5;
const PATH = "/kepler.model.v1.RegistryService/ListModels";

async function startBareRefuser() {
  const script = new URL("./bare-refuser.ts", import.meta.url).pathname;
  const [file, ...args] = serverCommand([process.execPath, "--import", "tsx", script]);
  const child = spawn(file!, args, { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<string>((resolve, reject) => {
    let output = "";
    child.stdout.on("data", (data: Buffer) => {
      output += data.toString();
      const found = /listening (\d+)/.exec(output);
      if (found) resolve(found[1]!);
    });
    child.on("exit", (code) => reject(new Error(`bare refuser exited (${code})`)));
  });
  return { child, address: `127.0.0.1:${port}` };
}

// One burst from h2load: its mean and max time per request (ms), or undefined without h2load.
function h2loadBurst(address: string, body: string): { mean: number; max: number } | undefined {
  const run = spawnSync(
    "h2load",
    ["-n", String(BURST), "-c", "1", "-m", String(BURST), "-d", body].concat([
      "-H",
      "content-type: application/grpc",
      "-H",
      "te: trailers",
      `http://${address}${PATH}`,
    ]),
    { encoding: "utf8" },
  );
  const times = /time for request:\s+([\d.]+)(m?s)\s+([\d.]+)(m?s)\s+([\d.]+)(m?s)/.exec(run.stdout ?? "");
  if (run.status !== 0 || times === null) return undefined;
  const toMs = (value: string, unit: string) => Number(value) * (unit === "s" ? 1000 : 1);
  return { mean: toMs(times[5]!, times[6]!), max: toMs(times[3]!, times[4]!) };
}

/**
 * Table rows: per server, refused/sent, refusal p50/p99 pooled over the rounds, server CPU per call, and
 * h2load's mean / max time per request (median round) when it is installed.
 */
export async function burstsAgainstFloor(registry: { address: string; pid: number }): Promise<string[][]> {
  const bare = await startBareRefuser();
  const servers = [
    { name: "our registry (calls pool held)", address: registry.address, pid: registry.pid },
    { name: "bare node:http2 refuser (the floor)", address: bare.address, pid: bare.child.pid! },
  ].map((server) => ({
    ...server,
    door: grpcDoor(server.address, PATH, 1),
    refused: [] as number[],
    sent: 0,
    cpu: [] as number[],
    h2load: [] as Array<{ mean: number; max: number }>,
  }));
  // h2load's request body: one empty gRPC message.
  const body = join(tmpdir(), `bench-burst-body-${process.pid}`);
  writeFileSync(body, Buffer.alloc(5));
  try {
    for (const server of servers) for (let i = 0; i < 200; i++) await server.door.call();
    for (let round = 0; round < ROUNDS; round++) {
      for (const server of round % 2 === 0 ? servers : [...servers].reverse()) {
        const cpuBefore = processCpuNs(server.pid);
        const start = performance.now();
        const outcomes = await Promise.all(
          Array.from({ length: BURST }, () => server.door.call().then((code) => ({ code, ms: performance.now() - start }))),
        );
        server.cpu.push((processCpuNs(server.pid) - cpuBefore) / 1e6 / BURST);
        server.sent += BURST;
        server.refused.push(...outcomes.filter((o) => o.code === "grpc 8").map((o) => o.ms));
        await new Promise((resolve) => setTimeout(resolve, 300));
        const fromH2load = h2loadBurst(server.address, body);
        if (fromH2load !== undefined) server.h2load.push(fromH2load);
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    }
  } finally {
    for (const server of servers) server.door.close();
    bare.child.kill("SIGTERM");
    rmSync(body, { force: true });
  }
  return servers.map((server) => [
    server.name,
    `${server.refused.length}/${server.sent}`,
    `${ms(quantile(server.refused, 0.5))} / ${ms(quantile(server.refused, 0.99))}`,
    median(server.cpu).toFixed(3),
    server.h2load.length === 0
      ? "h2load not installed (nghttp2-client)"
      : `${ms(median(server.h2load.map((run) => run.mean)))} / ${ms(median(server.h2load.map((run) => run.max)))}`,
  ]);
}
