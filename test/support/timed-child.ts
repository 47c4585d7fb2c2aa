// A client in a process of its own, for tests that hold their own event loop (it could not send while
// held): `node -e <script>`, where the script prints "ready\n" once connected, may wait for a line on
// stdin (`go`), and prints one JSON object last. Tests compare the wall-clock times the child reports
// (Date.now()) with the end of their hold.
import { spawn } from "node:child_process";

export interface TimedChild<T> {
  /** Resolves once the child printed "ready". */
  readonly ready: Promise<void>;
  /** Sends the child its "go" line. */
  go(): void;
  /** The JSON the child printed last, once it exited 0. */
  readonly result: Promise<T>;
}

export function startTimedChild<T>(script: string): TimedChild<T> {
  const child = spawn(process.execPath, ["-e", script], { stdio: ["pipe", "pipe", "inherit"] });
  let output = "";
  let ready: () => void;
  const readyPromise = new Promise<void>((resolve) => (ready = resolve));
  child.stdout.on("data", (data: Buffer) => {
    output += data.toString();
    if (output.startsWith("ready\n")) ready();
  });
  const result = new Promise<T>((resolve, reject) =>
    child.on("exit", (code) =>
      code === 0
        ? resolve(JSON.parse(output.slice("ready\n".length)) as T)
        : reject(new Error(`child exited ${code}: ${output}`)),
    ),
  );
  return { ready: readyPromise, go: () => child.stdin.write("go\n"), result };
}
