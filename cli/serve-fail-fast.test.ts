// A listener that cannot start fails `kepler-model serve`: the real process, one listener's address taken
// by another server, exits non-zero with one line naming that address (issue 33: a half-started server
// must not look alive).
import { mkdtemp, rm } from "node:fs/promises";
import { type Server, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createChannel, createClient } from "nice-grpc";
import { HealthDefinition } from "nice-grpc-server-health";
import { afterEach, describe, expect, it } from "vitest";
import { REPO_ROOT, spawnNode } from "../test/support/child-process.js";
import { connect } from "node:net";
import { readFileSync } from "node:fs";

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

describe("serve with every listener up", () => {
  it("prints its version and every listener only once all listen, and each answers (readiness)", async () => {
    const folder = await mkdtemp(join(tmpdir(), "kepler-all-up-"));
    cleanups.push(() => rm(folder, { recursive: true, force: true }));
    const socket = join(folder, "estimator.sock");
    const serve = spawnNode([
      "bin/kepler-model.js",
      "serve",
      "--no-default-models",
      `--model-path=${join(folder, "models")}`,
      `--estimator-socket=${socket}`,
      "--log-format=json",
      ...OTHER_PORTS_FREE,
    ]);
    cleanups.push(async () => {
      if (serve.child.exitCode === null) {
        serve.child.kill("SIGTERM");
        await serve.exited;
      }
    });
    const version: string = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")).version;
    const [banner] = await serve.waitForOutput(
      /kepler-model \S+ \(revision [0-9a-f]{12}\): services listening[^]*Stop with/,
      60_000,
    );
    expect(banner).toContain(`kepler-model ${version} (revision `);
    const grpc = [...banner.matchAll(/^ {2}(\w+) +(127\.0\.0\.1:\d+)$/gm)].map((m) => ({ name: m[1]!, address: m[2]! }));
    expect(grpc.map((g) => g.name).sort()).toEqual(["estimator", "extractor", "isolator", "pipeline", "registry", "trainer"]);
    for (const { name, address } of grpc) {
      const channel = createChannel(address);
      try {
        const fullName = `kepler.model.v1.${name[0]!.toUpperCase()}${name.slice(1)}Service`;
        // 1 = SERVING (the estimator's readiness also needs its registry, which is up).
        expect((await createClient(HealthDefinition, channel).check({ service: fullName })).status, fullName).toBe(1);
      } finally {
        channel.close();
      }
    }
    const metricsUrl = /(http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(banner)![1]!;
    expect(await (await fetch(metricsUrl)).text()).toContain(`kepler_model_build_info{version="${version}"`);
    expect(banner).toContain(`unix:${socket}`);
    await new Promise<void>((resolve, reject) => connect(socket, resolve).once("error", reject).unref());
    serve.child.kill("SIGTERM");
    expect(await serve.exited).toBe(0);
  }, 90_000);
});
