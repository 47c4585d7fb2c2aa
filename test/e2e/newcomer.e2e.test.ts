// What a newcomer does, from the README's quickstart: a fresh `git clone` of the committed repository into a
// temporary folder, `npm ci`, `npm start` in the background (every port set to 0 through the environment so
// nothing clashes), wait for health, Estimate through server reflection only (no .proto file, the JSON the
// README and `npm start` print for grpcurl), the README's `npx kepler-model` commands, then SIGTERM and exit 0.
// Every line of the quickstart's command blocks is run here; an unknown line fails the test.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import * as grpc from "@grpc/grpc-js";
import { GrpcReflection } from "grpc-js-reflection-client";
import { createChannel, createClient } from "nice-grpc";
import { HealthDefinition } from "nice-grpc-server-health";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SERVICE_NAMES } from "../../services/kit/config/service-addresses.js";
import { grpcurlEstimateCommand } from "../../services/mesh/estimate-example.js";
import { REPO_ROOT } from "../support/child-process.js";

const run = promisify(execFile);

/** The command lines of the README's quickstart section, comments and blank lines removed. */
function quickstartCommands(): string[] {
  const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
  const start = readme.indexOf("\n## Quickstart");
  const section = readme.slice(start, readme.indexOf("\n## ", start + 1));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)]
    .flatMap((block) => block[1]!.split("\n"))
    .map((line) => line.replace(/\s+#\s.*$/, "").trim())
    .filter((line) => line !== "");
}

// The environment of the newcomer's shell: ports 0 (the metrics port too) so nothing clashes with a running server, plain output.
const PORT_ENV = {
  ...Object.fromEntries(SERVICE_NAMES.map((name) => [`KEPLER_MODEL_${name.toUpperCase()}_PORT`, "0"])),
  KEPLER_MODEL_METRICS_PORT: "0",
};
const baseEnv = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, CI: "true", NO_COLOR: "1" };
  for (const name of Object.keys(env)) if (name.startsWith("VITEST") || name === "NODE_OPTIONS") delete env[name];
  return env;
};

let workdir: string;
let clone: string;
let server: ChildProcess | undefined;
let serverOutput = "";
let serverExit: Promise<number | null>;
const addresses = new Map<string, string>();
let printedGrpcurl = "";
const commands = quickstartCommands();

beforeAll(async () => {
  workdir = await mkdtemp(join(tmpdir(), "newcomer-"));
});

afterAll(async () => {
  if (server !== undefined && server.exitCode === null && server.signalCode === null) {
    server.kill("SIGKILL");
    await serverExit;
  }
  if (workdir !== undefined) await rm(workdir, { recursive: true, force: true });
});

function waitForOutput(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}; output:\n${serverOutput}`)), timeoutMs);
    const check = () => {
      const match = serverOutput.match(pattern);
      if (match === null) return;
      clearTimeout(timer);
      server?.stdout?.off("data", check);
      resolve(match);
    };
    server?.stdout?.on("data", check);
    void serverExit.then((code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited (${code}) before ${pattern}; output:\n${serverOutput}`));
    });
    check();
  });
}

async function waitForServing(address: string): Promise<void> {
  const channel = createChannel(address);
  const health = createClient(HealthDefinition, channel);
  try {
    for (let attempt = 0; ; attempt++) {
      const status = await health
        .check({ service: "kepler.model.v1.EstimatorService" })
        .then((response) => response.status)
        .catch(() => undefined);
      if (status === 1) return; // SERVING
      if (attempt >= 100) throw new Error(`${address} not SERVING after 100 attempts (last: ${status})`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    channel.close();
  }
}

/** Estimate through server reflection only: the service and message types come from the server itself. */
async function estimateByReflection(address: string, body: unknown): Promise<Record<string, unknown>> {
  const reflection = new GrpcReflection(address, grpc.credentials.createInsecure());
  const descriptor = await reflection.getDescriptorBySymbol("kepler.model.v1.EstimatorService");
  // keepCase: field names as reflection shows them (what grpcurl prints and reads).
  const loaded = descriptor.getPackageObject({ keepCase: true, enums: String, longs: String, defaults: true });
  const model = (loaded.kepler as grpc.GrpcObject).model as grpc.GrpcObject;
  const Client = (model.v1 as grpc.GrpcObject).EstimatorService as grpc.ServiceClientConstructor;
  const client = new Client(address, grpc.credentials.createInsecure());
  // A method built from the reflected descriptor: (request, callback), response fields as reflection names them.
  const estimate = client.Estimate as (
    request: unknown,
    callback: (error: grpc.ServiceError | null, response: Record<string, unknown>) => void,
  ) => void;
  try {
    return await new Promise((resolve, reject) =>
      estimate.call(client, body, (error: grpc.ServiceError | null, response: Record<string, unknown>) =>
        error ? reject(error) : resolve(response),
      ),
    );
  } finally {
    client.close();
  }
}

async function shell(line: string): Promise<string> {
  const env = {
    ...baseEnv(),
    KEPLER_MODEL_ESTIMATOR_ADDRESS: addresses.get("estimator"),
    KEPLER_MODEL_REGISTRY_ADDRESS: addresses.get("registry"),
  };
  const { stdout } = await run("sh", ["-c", line], { cwd: clone, env, timeout: 120_000 });
  return stdout;
}

describe("a newcomer's first minutes: the README quickstart on a fresh clone", () => {
  it("the quickstart is clone, npm ci, npm start, the grpcurl Estimate and kepler-model commands", () => {
    expect(commands[0]).toMatch(/^git clone <repository-url> ([\w.-]+) && cd \1$/);
    expect(commands.slice(1, 3)).toEqual(["npm ci", "npm start"]);
    // The grpcurl line is exactly what `npm start` prints for the default estimator address.
    expect(commands[3]).toBe(grpcurlEstimateCommand("127.0.0.1:8101"));
    for (const line of commands.slice(4))
      expect(line).toMatch(/^(npx kepler-model |curl -s -X POST http:\/\/127\.0\.0\.1:8100\/model )/);
  });

  it("git clone + npm ci: installs and builds the contracts and the WASM core from committed files only", async () => {
    clone = join(workdir, commands[0]!.match(/^git clone \S+ (\S+)/)![1]!);
    await run("git", ["clone", "--quiet", REPO_ROOT, clone], { timeout: 120_000 });
    const started = performance.now();
    // --prefer-offline: the machine's npm cache, so the test does not depend on the registry's speed.
    await run("npm", ["ci", "--prefer-offline", "--no-audit", "--no-fund"], {
      cwd: clone,
      env: baseEnv(),
      timeout: 600_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    console.info(`npm ci on a fresh clone: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    expect(existsSync(join(clone, "services/generated/kepler/model/v1/estimator_service.ts"))).toBe(true);
    expect(existsSync(join(clone, "services/generated/descriptor-set.binpb"))).toBe(true);
    expect(existsSync(join(clone, "wasm-core/build/core.wasm"))).toBe(true);
    expect(existsSync(join(clone, "services/mesh/default-data/coremark-2023-09-28.json.gz"))).toBe(true);
  }, 660_000);

  it("npm start: trains the default models, then prints where each service listens and the grpcurl command", async () => {
    expect(existsSync(join(clone, "node_modules"))).toBe(true);
    const started = performance.now();
    server = spawn("npm", ["start"], { cwd: clone, env: { ...baseEnv(), ...PORT_ENV }, stdio: ["ignore", "pipe", "pipe"] });
    serverExit = new Promise((resolve) => server!.on("exit", (code) => resolve(code)));
    server.stdout?.on("data", (data: Buffer) => {
      serverOutput += data.toString();
    });
    server.stderr?.on("data", (data: Buffer) => {
      serverOutput += data.toString();
    });
    await waitForOutput(/Stop with Ctrl-C/, 180_000);
    console.info(`npm start with the default training: ${((performance.now() - started) / 1000).toFixed(1)} s`);

    expect(serverOutput).toContain('No models in .kepler-model/models: training the default models (pipeline "default"');
    expect(serverOutput).toMatch(/^ {2}\[16\/16\] acpi {7}DynPower CounterIRQCombined SGDRegressorTrainer_0 +MAE \d+\.\d\d W$/m);
    expect(serverOutput).toMatch(/^Default models ready: 16 published to pipeline "default" in \d+\.\d s\.$/m);
    for (const match of serverOutput.matchAll(/^ {2}(\w+) +(127\.0\.0\.1:\d+)$/gm)) addresses.set(match[1]!, match[2]!);
    expect([...addresses.keys()].sort()).toEqual([...SERVICE_NAMES].sort());
    printedGrpcurl = serverOutput.match(/^ {2}(grpcurl .*)$/m)![1]!;
    expect(printedGrpcurl).toBe(grpcurlEstimateCommand(addresses.get("estimator")!));
    // Not a terminal: the logs are JSON lines.
    const logLine = serverOutput.split("\n").find((line) => line.startsWith("{"));
    expect(JSON.parse(logLine!)).toMatchObject({ level: 30 });
  }, 240_000);

  it("waits for health, then Estimate through reflection only, with the printed grpcurl JSON, answers watts", async () => {
    const address = addresses.get("estimator")!;
    await waitForServing(address);
    const body = JSON.parse(commands[3]!.match(/ -d '([^']*)' /)![1]!);
    const response = (await estimateByReflection(address, body)) as {
      component_powers: { component: string; power_watts: number[] }[];
      row_count: number;
      model_name: string;
      model_mae_watts: number;
      model_location: { pipeline_name: string; energy_source: string };
    };
    expect(response.row_count).toBe(1);
    expect(response.model_location).toMatchObject({ pipeline_name: "default", energy_source: "rapl-sysfs" });
    expect(response.component_powers.map((c) => c.component)).toEqual(["package", "core", "uncore", "dram"]);
    // The row is second 1695361872 of the bundled recording, where RAPL measured package 188.18 W and dram
    // 49.80 W (reference extraction); the default model is within twice its MAE of both.
    const watts = Object.fromEntries(response.component_powers.map((c) => [c.component, c.power_watts[0]!]));
    expect(Math.abs(watts.package! - 188.18433333312473)).toBeLessThanOrEqual(2 * response.model_mae_watts);
    expect(Math.abs(watts.dram! - 49.79566666608056)).toBeLessThanOrEqual(2 * response.model_mae_watts);
    expect(watts.core).toBe(0);
    expect(watts.uncore).toBe(0);
  }, 60_000);

  it("the README's kepler-model commands work against it", async () => {
    const estimate = commands.find((line) => line.startsWith("npx kepler-model estimate "))!;
    const estimated = await shell(estimate);
    const [header, row] = estimated.split("\n");
    expect(header!.split(/\s+/)).toEqual(["row", "package_w", "core_w", "uncore_w", "dram_w"]);
    const [, packageWatts, coreWatts, , dramWatts] = row!.split(/\s+/).map(Number);
    expect(Math.abs(packageWatts! - 188.18433333312473)).toBeLessThanOrEqual(20);
    expect(coreWatts).toBe(0);
    expect(Math.abs(dramWatts! - 49.79566666608056)).toBeLessThanOrEqual(20);
    expect(estimated).toMatch(/^model: \w+Trainer_0 \(CounterOnly, MAE [\d.]+ W\) from default$/m);

    const list = commands.find((line) => line.startsWith("npx kepler-model models list"))!;
    const listed = (await shell(list)).trimEnd().split("\n");
    expect(listed[0]!.split(/\s+/)).toEqual(["pipeline", "source", "output", "feature_group", "model", "mae_w", "weights"]);
    expect(listed).toHaveLength(17);
    expect(
      listed
        .slice(1)
        .every((line) => /^default +(rapl-sysfs|acpi) +(AbsPower|DynPower) +Counter\w+ +\w+_0 +[\d.]+ +yes$/.test(line)),
    ).toBe(true);
    const curl = commands.find((line) => line.startsWith("curl "))!;
    for (const line of commands.slice(4)) expect([estimate, list, curl]).toContain(line);
  }, 240_000);

  it("the README's curl POST /model (Kepler's regressor request) gets Kepler's weight.json from the registry port", async () => {
    // curl may be missing on a newcomer's machine; the same request goes through fetch, headers and body as written.
    const curl = commands.find((line) => line.startsWith("curl "))!;
    const body = curl.match(/ -d '([^']*)'/)![1]!;
    const contentType = curl.match(/-H 'Content-Type: ([^']*)'/)![1]!;
    const response = await fetch(`http://${addresses.get("registry")}/model`, {
      method: "POST",
      headers: { "Content-Type": contentType },
      body,
    });
    expect(response.status).toBe(200);
    const weights = (await response.json()) as Record<string, { All_Weights: { Numerical_Variables: object } }>;
    expect(Object.keys(weights).sort()).toEqual(["core", "dram", "package", "uncore"]);
    expect(Object.keys(weights.package!.All_Weights.Numerical_Variables).length).toBeGreaterThan(0);
  }, 60_000);

  it("SIGTERM: the services stop and npm start exits 0", async () => {
    server!.kill("SIGTERM");
    expect(await serverExit).toBe(0);
    expect(serverOutput).toContain('"msg":"shutting down"');
    // Nothing is left listening.
    const channel = createChannel(addresses.get("estimator")!);
    const error = await createClient(HealthDefinition, channel)
      .check({ service: "" }, { signal: AbortSignal.timeout(5_000) })
      .catch((e: unknown) => e);
    channel.close();
    expect(error).toBeInstanceOf(Error);
  }, 60_000);
});
