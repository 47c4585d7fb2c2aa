// Bursts on one connection (bench/overload): BURST gRPC calls sent at once on one HTTP/2 connection by a
// light client, every one refused, against our registry with its calls pool held and against a bare Node
// HTTP/2 server that refuses every stream at once (bare-refuser.ts), in alternating rounds. A refusal in
// a burst comes back after the server has handled the calls ahead of it, so the bare server's times are
// the floor Node's HTTP/2 sets on this machine for any server.
import { spawn } from "node:child_process";
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

/** Table rows: per server, refused/sent, refusal p50/p99 pooled over the rounds, server CPU per call. */
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
  }));
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
      }
    }
  } finally {
    for (const server of servers) server.door.close();
    bare.child.kill("SIGTERM");
  }
  return servers.map((server) => [
    server.name,
    `${server.refused.length}/${server.sent}`,
    `${ms(quantile(server.refused, 0.5))} / ${ms(quantile(server.refused, 0.99))}`,
    median(server.cpu).toFixed(3),
  ]);
}
