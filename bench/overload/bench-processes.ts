// The processes of bench/overload: the servers under test (`kepler-model serve`), the flooding process of
// one door (flood-child.ts), and what is read of them (RSS from /proc, quantiles).
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import type { Outcome } from "./flood-doors.js";

// --pin-server: the servers on CPU 0, this bench and its flooding processes on the other CPUs, as when
// clients are other machines; without it every process shares every CPU (a flood's client CPU, about
// twice the server's per gRPC call, then competes with the server it floods).
// On 2 CPUs the client timing Estimate shares its CPU with the flooding process, so its p99 still carries
// some of the flood's client work.
const PIN_SERVER = process.argv.includes("--pin-server");

/** Pins this process (all its threads; children inherit it) off CPU 0 under --pin-server: what the bench says of the layout. */
export function pinBench(): string {
  if (!PIN_SERVER) return "every process on every CPU";
  const cpus = availableParallelism();
  if (cpus < 2) throw new Error("--pin-server needs at least 2 CPUs");
  const pinned = spawnSync("taskset", ["-a", "-p", "-c", `1-${cpus - 1}`, String(process.pid)], { encoding: "utf8" });
  if (pinned.status !== 0) throw new Error(`taskset failed: ${pinned.stderr || pinned.error?.message}`);
  return `servers on CPU 0, this bench and the flooding processes on CPUs 1-${cpus - 1}`;
}

/**
 * `kepler-model serve <services...>` with `args`, once every service printed its address: the process and
 * each service's host:port.
 */
export async function startServe(
  services: readonly string[],
  args: readonly string[],
): Promise<{ child: ChildProcess; addresses: Record<string, string> }> {
  const bin = new URL("../../bin/kepler-model.js", import.meta.url).pathname;
  const ports = services.flatMap((service) => [`--${service}-port`, "0"]);
  const command = [process.execPath, bin, "serve", ...services, ...ports, ...args, "--log-level", "error"];
  const [file, ...rest] = serverCommand(command);
  const child = spawn(file!, rest, { stdio: ["ignore", "pipe", "inherit"] });
  let output = "";
  const addresses = await new Promise<Record<string, string>>((resolve, reject) => {
    child.stdout?.on("data", (data: Buffer) => {
      output += data.toString();
      const found = services.map((service) => new RegExp(`${service}\\s+(\\S+:\\d+)`).exec(output)?.[1]);
      if (found.every((address) => address !== undefined))
        resolve(Object.fromEntries(services.map((service, i) => [service, found[i]!])));
    });
    child.on("exit", (code) => reject(new Error(`servers exited (${code}): ${output}`)));
  });
  return { child, addresses };
}

/** A server's command line, on CPU 0 under --pin-server. */
export function serverCommand(command: readonly string[]): string[] {
  return PIN_SERVER ? ["taskset", "-c", "0", ...command] : [...command];
}

export const rssMiB = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;

/** Samples the child's RSS every 10 ms while `work` runs: [before, peak]. */
export async function withPeakRss<T>(
  child: ChildProcess,
  work: () => Promise<T>,
): Promise<{ result: T; beforeMiB: number; peakMiB: number }> {
  const beforeMiB = rssMiB(child.pid!);
  let peakMiB = beforeMiB;
  const timer = setInterval(() => (peakMiB = Math.max(peakMiB, rssMiB(child.pid!))), 10);
  try {
    const result = await work();
    return { result, beforeMiB, peakMiB: Math.max(peakMiB, rssMiB(child.pid!)) };
  } finally {
    clearInterval(timer);
  }
}

export const quantile = (values: number[], q: number) => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};

// Starts the flood child of one door (flood-child.ts) and waits until it is connected; `go` floods and
// resolves with its outcomes and the CPU the flooding process spent on them.
export function floodChild(
  door: string,
  registryAddress: string,
  socketPath: string,
  estimatorAddress: string,
): Promise<{ go: () => Promise<{ outcomes: Outcome[]; cpuMs: number }> }> {
  return readyChild(new URL("./flood-child.ts", import.meta.url), [door, registryAddress, socketPath, estimatorAddress], door);
}

/**
 * Starts a flooding process (`script` with `args`) that prints "ready" once connected and floods when a line
 * arrives on stdin; `go` sends the line and resolves with the JSON it prints last.
 */
export async function readyChild<T>(script: URL, args: readonly string[], label: string): Promise<{ go: () => Promise<T> }> {
  const child = spawn(process.execPath, ["--import", "tsx", script.pathname, ...args], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  let output = "";
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (data: Buffer) => {
      output += data.toString();
      if (output.startsWith("ready\n")) resolve();
    });
    void exited.then((code) => reject(new Error(`flood child for ${label} exited with ${code} before it was ready`)));
  });
  return {
    go: async () => {
      child.stdin?.end("go\n");
      const code = await exited;
      if (code !== 0) throw new Error(`flood child for ${label} exited with ${code}`);
      return JSON.parse(output.slice("ready\n".length)) as T;
    },
  };
}
