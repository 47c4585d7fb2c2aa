// What one request on a fresh connection costs the server (bench/overload), answered or refused: HTTP
// (Kepler's clients and the flood open one TCP connection per request) and Kepler's unix socket (one
// connection per request by protocol). Server CPU per request, all threads, from /proc, over sequential
// requests. It says how far admission can shed a burst of fresh connections: a refusal still pays for the
// connection, its parse and its write, so 400 connections arriving at once hold the one event loop for
// about 400 times this, whatever admission answers.
import { processCpuNs } from "../support/process-cpu.js";
import { printTable } from "../support/measure.js";

const REQUESTS = 500;

/** Each case's server CPU per request in microseconds, after a warm-up of the same size. */
export async function connectionCost(pid: number, cases: Record<string, () => Promise<unknown>>): Promise<void> {
  const rows: string[][] = [];
  for (const [name, call] of Object.entries(cases)) {
    for (let i = 0; i < REQUESTS; i++) await call();
    const cpuBefore = processCpuNs(pid);
    const start = performance.now();
    for (let i = 0; i < REQUESTS; i++) await call();
    const micros = (processCpuNs(pid) - cpuBefore) / 1000 / REQUESTS;
    rows.push([name, micros.toFixed(0), ((1000 * (performance.now() - start)) / REQUESTS).toFixed(0)]);
  }
  printTable(
    `One request per fresh connection, ${REQUESTS} sequential requests per case: the server's CPU per request (all threads)`,
    ["request", "server CPU us/request", "wall us/request"],
    rows,
  );
}
