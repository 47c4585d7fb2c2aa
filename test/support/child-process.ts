import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** Repository root, for spawning our own entry points. */
export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** A child process with its output collected and a promise of its exit code. */
export interface RunningChild {
  readonly child: ChildProcess;
  output(): string;
  readonly exited: Promise<number | null>;
  /** Resolves with the first match of `pattern` in stdout (rejects if the process exits first). */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
}

/**
 * Spawns `node <args>` from the repository root with tsx loaded (TypeScript entry points). `bin/kepler-model.js`
 * needs no loader (it loads tsx itself when it runs the sources): `{ tsx: false }` runs it as users do, without
 * tsx's hooks in front of the bundle, which also weigh on a memory measurement.
 */
export function spawnNode(args: readonly string[], env: NodeJS.ProcessEnv = {}, options: { tsx?: boolean } = {}): RunningChild {
  const child = spawn(process.execPath, [...(options.tsx === false ? [] : ["--import", "tsx"]), ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (data: Buffer) => {
    stdout += data.toString();
  });
  child.stderr?.on("data", (data: Buffer) => {
    stderr += data.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return {
    child,
    output: () => stdout + stderr,
    exited,
    waitForOutput(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`timed out waiting for ${pattern}; output:\n${stdout}${stderr}`)),
          timeoutMs,
        );
        const check = () => {
          const match = stdout.match(pattern);
          if (match) {
            clearTimeout(timer);
            child.stdout?.off("data", check);
            resolve(match);
          }
        };
        child.stdout?.on("data", check);
        exited.then((code) => {
          clearTimeout(timer);
          reject(new Error(`process exited (${code}) before ${pattern}; output:\n${stdout}${stderr}`));
        });
        check();
      });
    },
  };
}
