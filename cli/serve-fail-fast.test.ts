// A listener that cannot start fails `kepler-model serve`: the real process, one listener's address taken
// by another server, exits non-zero with one line naming that address (issue 33: a half-started server
// must not look alive).
import { mkdtemp, rm } from "node:fs/promises";
import { type Server, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { spawnNode } from "../test/support/child-process.js";

const OTHER_PORTS_FREE = [
  "--registry-port=0",
  "--estimator-port=0",
  "--pipeline-port=0",
  "--extractor-port=0",
  "--isolator-port=0",
  "--trainer-port=0",
  "--metrics-port=0",
];

let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

/** A server holding `target` (a loopback port when 0, else a socket path); returns what it holds. */
async function occupy(target: number | string): Promise<string> {
  const server: Server = createServer();
  await new Promise<void>((resolve) =>
    typeof target === "string" ? server.listen(target, resolve) : server.listen(target, "127.0.0.1", resolve),
  );
  cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
  const address = server.address();
  return typeof address === "string" ? address : `127.0.0.1:${address?.port}`;
}

async function serveWith(flags: readonly string[]): Promise<{ code: number | null; output: string }> {
  const folder = await mkdtemp(join(tmpdir(), "kepler-fail-fast-"));
  cleanups.push(() => rm(folder, { recursive: true, force: true }));
  const serve = spawnNode([
    "bin/kepler-model.js",
    "serve",
    "--no-default-models",
    `--model-path=${join(folder, "models")}`,
    "--log-format=json",
    ...OTHER_PORTS_FREE,
    ...flags,
  ]);
  cleanups.push(async () => {
    if (serve.child.exitCode === null) serve.child.kill("SIGKILL");
  });
  const code = await serve.exited;
  return { code, output: serve.output() };
}

function linesNaming(output: string, address: string): string[] {
  return output.split("\n").filter((line) => line.includes(address));
}

describe("serve fails fast when a listener cannot start", () => {
  for (const { listener, flag } of [
    { listener: "registry gRPC and HTTP", flag: "registry-port" },
    { listener: "estimator gRPC", flag: "estimator-port" },
    { listener: "metrics HTTP", flag: "metrics-port" },
  ]) {
    it(`${listener}: port taken -> exit code 1, one line naming the port`, async () => {
      const taken = await occupy(0);
      const port = taken.split(":")[1];
      const { code, output } = await serveWith([`--${flag}=${port}`]);
      expect(code, output).toBe(1);
      const lines = linesNaming(output, taken);
      expect(lines, output).toHaveLength(1);
      expect(lines[0]).toContain(`kepler-model serve: ${listener} cannot listen on ${taken}:`);
      expect(lines[0]).toContain("EADDRINUSE");
    }, 60_000);
  }

  it("estimator socket: path served by another process -> exit code 1, one line naming the path", async () => {
    const folder = await mkdtemp(join(tmpdir(), "kepler-fail-fast-socket-"));
    cleanups.push(() => rm(folder, { recursive: true, force: true }));
    const path = await occupy(join(folder, "estimator.sock"));
    const { code, output } = await serveWith([`--estimator-socket=${path}`]);
    expect(code, output).toBe(1);
    const lines = linesNaming(output, path);
    expect(lines, output).toHaveLength(1);
    expect(lines[0]).toBe(
      `kepler-model serve: --estimator-socket: another server is listening on ${path}; stop it or choose another path`,
    );
  }, 60_000);

  it("estimator socket: folder missing -> exit code 1, one line naming the path", async () => {
    const path = join(tmpdir(), "kepler-no-such-folder", "estimator.sock");
    const { code, output } = await serveWith([`--estimator-socket=${path}`]);
    expect(code, output).toBe(1);
    const lines = linesNaming(output, path);
    expect(lines, output).toHaveLength(1);
    expect(lines[0]).toContain(`kepler-model serve: estimator socket cannot listen on ${path}:`);
  }, 60_000);
});
