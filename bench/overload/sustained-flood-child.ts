// One sustained flood of bench/overload from its own process: calls of one door sent open loop, RATE per
// second for DURATION ms, whatever comes back (a light client: light-doors.ts). Each call is timed from
// the moment it was due, not from when this process got round to sending it, so a flooder that falls
// behind adds its delay instead of hiding it. Prints "ready" once connected, floods when a line arrives
// on stdin, then prints its outcomes as JSON with the CPU it spent.
// Argument: JSON { door: "grpc" | "http" | "socket", target, path, request?, rate, durationMs }.
import { once } from "node:events";
import { grpcDoor, httpDoor, socketDoor } from "./light-doors.js";

interface FloodSpec {
  door: "grpc" | "http" | "socket";
  /** host:port (gRPC), port (HTTP) or the socket's path. */
  target: string;
  /** The gRPC method path or HTTP path. */
  path: string;
  /** The socket's request text. */
  request?: string;
  rate: number;
  durationMs: number;
}

const spec = JSON.parse(process.argv[2]!) as FloodSpec;
const door =
  spec.door === "grpc"
    ? grpcDoor(spec.target, spec.path)
    : spec.door === "http"
      ? httpDoor(Number(spec.target), spec.path)
      : socketDoor(spec.target, spec.request ?? "");
await door.call().catch(() => undefined);
process.stdout.write("ready\n");
await once(process.stdin, "data");

const outcomes: Array<{ code: string; ms: number }> = [];
const pending: Array<Promise<void>> = [];
const total = Math.round((spec.rate * spec.durationMs) / 1000);
const cpuBefore = process.cpuUsage();
const start = performance.now();
let sent = 0;
let maxLagMs = 0;
await new Promise<void>((done) => {
  const tick = () => {
    const now = performance.now();
    const due = Math.min(total, Math.floor(((now - start) * spec.rate) / 1000) + 1);
    for (; sent < due; sent++) {
      const dueAt = start + (sent * 1000) / spec.rate;
      maxLagMs = Math.max(maxLagMs, now - dueAt);
      pending.push(
        door.call().then(
          (code) => void outcomes.push({ code, ms: performance.now() - dueAt }),
          (error: Error) => void outcomes.push({ code: `error ${error.message.slice(0, 60)}`, ms: performance.now() - dueAt }),
        ),
      );
    }
    if (sent < total) setTimeout(tick, 1);
    else done();
  };
  tick();
});
await Promise.all(pending);
const cpu = process.cpuUsage(cpuBefore);
door.close();
process.stdout.write(JSON.stringify({ outcomes, cpuMs: (cpu.user + cpu.system) / 1000, maxLagMs }));
