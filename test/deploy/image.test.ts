// The container image, checked without a Docker engine (none runs here): the Dockerfile is read and held
// against the code (CLI entry point and commands, ports, env vars, build outputs), and the runtime
// stage's file set is assembled the way its COPY lines and .dockerignore assemble it, with only the
// production packages `npm ci --omit=dev` installs, then started: every service must come up SERVING.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { ClientError, Metadata, Status, createChannel, createClient } from "nice-grpc";
import { HealthDefinition } from "nice-grpc-server-health";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { COMMANDS } from "../../cli/commands/index.js";
import { RegistryServiceDefinition } from "../../services/generated/kepler/model/v1/registry_service.js";
import { DEFAULT_PORTS, SERVICE_NAMES, logFormatKey, logLevelKey } from "../../services/kit/config/service-addresses.js";
import { metricsPortKey } from "../../services/kit/observe/metrics.js";
import { authTokensFileKey } from "../../services/kit/security/security-config.js";
import { meshConfigSchema } from "../../services/mesh/default-models-config.js";
import { SERVICE_LAUNCHERS } from "../../services/mesh/service-launchers.js";
import { REPO_ROOT } from "../support/child-process.js";
import {
  type Stage,
  copyContextPath,
  copyProductionPackages,
  dockerIgnoreMatcher,
  parseCopy,
  parseDockerfile,
  parseEnv,
} from "./support/dockerfile.js";

const dockerfile = parseDockerfile(readFileSync(join(REPO_ROOT, "Dockerfile"), "utf8"));
const isIgnored = dockerIgnoreMatcher(readFileSync(join(REPO_ROOT, ".dockerignore"), "utf8"));
const packageJson = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8"));

function stage(name: string): Stage {
  const found = dockerfile.stages.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`no stage ${name}`);
  return found;
}
function instructions(from: Stage, keyword: string): string[] {
  return from.instructions.filter((instruction) => instruction.keyword === keyword).map((instruction) => instruction.args);
}
const runtime = stage("runtime");
const builder = stage("builder");
const runtimeEnv = Object.assign({}, ...instructions(runtime, "ENV").map(parseEnv)) as Record<string, string>;

/** Where the build writes its outputs, read from the build configs. */
function buildOutputs(): string[] {
  const bufGen = parseYaml(readFileSync(join(REPO_ROOT, "buf.gen.yaml"), "utf8")) as { plugins: { out: string }[] };
  const asconfig = JSON.parse(readFileSync(join(REPO_ROOT, "wasm-core/asconfig.json"), "utf8"));
  // dist/: the bundled VM exporter (npm run build:exporter, deploy/vm/build-exporter.mjs).
  return [
    ...new Set(bufGen.plugins.map((plugin) => plugin.out)),
    join("wasm-core", dirname(asconfig.targets.release.outFile)),
    "dist",
  ];
}

describe("Dockerfile", () => {
  it("builds in a builder stage and runs the last stage as a non-root user", () => {
    expect(dockerfile.stages.map((s) => s.name)).toEqual(["builder", "runtime"]);
    expect(instructions(runtime, "USER")).toEqual(["node"]);
    expect(instructions(builder, "RUN")).toContain("npm run build");
    const runtimeInstall = instructions(runtime, "RUN").find((run) => run.includes("npm ci"));
    expect(runtimeInstall).toMatch(/npm ci --omit=dev --ignore-scripts/);
  });

  it("starts the kepler-model CLI entry point, serving all six services on the design's ports and /metrics on 8106", () => {
    const workdir = instructions(runtime, "WORKDIR")[0]!;
    const [node, script] = JSON.parse(instructions(runtime, "ENTRYPOINT")[0]!) as string[];
    expect(node).toBe("node");
    expect(relative(workdir, script!)).toBe(packageJson.bin["kepler-model"]);
    const cmd = JSON.parse(instructions(runtime, "CMD")[0]!) as string[];
    expect(COMMANDS.map((command) => command.name)).toContain(cmd[0]);
    expect(cmd).toEqual(["serve"]);
    const exposed = instructions(runtime, "EXPOSE").flatMap((ports) => ports.split(/\s+/).map(Number));
    expect(exposed.sort()).toEqual([...Object.values(DEFAULT_PORTS), metricsPortKey.default].sort());
    expect(runtimeEnv[meshConfigSchema.metricsHost.env], "the exposed metrics port listens beyond loopback").toBe("0.0.0.0");
  });

  it("sets only environment variables the code reads, binding 0.0.0.0", () => {
    const known = new Set([
      "NODE_ENV",
      logLevelKey.env,
      logFormatKey.env,
      ...Object.values(meshConfigSchema).map((key) => key.env),
      ...SERVICE_NAMES.flatMap((name) => Object.values(SERVICE_LAUNCHERS[name].configSchema).map((key) => key.env)),
    ]);
    expect(Object.keys(runtimeEnv).filter((name) => !known.has(name))).toEqual([]);
    expect(runtimeEnv.KEPLER_MODEL_HOST).toBe("0.0.0.0");
  });

  it("copies sources that exist and are not ignored, and build outputs only from the builder", () => {
    for (const from of [builder, runtime]) {
      for (const args of instructions(from, "COPY")) {
        const copy = parseCopy(args);
        for (const source of copy.sources) {
          if (copy.from === "builder") {
            expect(buildOutputs().map((out) => join("/src", out))).toContain(source);
          } else {
            expect(() => readdirSync(join(REPO_ROOT, dirname(source))), source).not.toThrow();
            expect(isIgnored(source), `${source} is excluded by .dockerignore`).toBe(false);
          }
        }
      }
    }
    for (const output of buildOutputs())
      expect(isIgnored(output), `${output} comes from the builder, not the context`).toBe(true);
    expect(isIgnored("services/kit/transport/grpc-server.test.ts")).toBe(true);
    expect(isIgnored("node_modules/pino/package.json")).toBe(true);
  });

  it("needs no dev dependency at run time: every package the runtime sources import is a dependency", () => {
    const sources = ["bin", "cli", "services", "wasm-core/src"].flatMap((dir) =>
      readdirSync(join(REPO_ROOT, dir), { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile() && /\.(ts|js)$/.test(entry.name))
        .map((entry) => relative(REPO_ROOT, join(entry.parentPath, entry.name)))
        .filter((path) => !isIgnored(path)),
    );
    const imported = new Set<string>();
    for (const path of sources) {
      for (const match of readFileSync(join(REPO_ROOT, path), "utf8").matchAll(/(?:from|import\()\s*"([^".][^"]*)"/g)) {
        const specifier = match[1]!;
        if (specifier.startsWith("node:")) continue;
        imported.add(specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]!);
      }
    }
    expect([...imported].filter((name) => !(name in packageJson.dependencies))).toEqual([]);
  });
});

describe("the runtime stage's files", () => {
  let appDir: string;
  let running: { process: ChildProcess; exited: Promise<number | null> } | undefined;

  beforeAll(() => {
    appDir = mkdtempSync(join(tmpdir(), "kepler-model-image-"));
    for (const args of instructions(runtime, "COPY")) {
      const copy = parseCopy(args);
      for (const source of copy.sources) {
        const contextPath = copy.from === "builder" ? relative("/src", source) : source;
        const target = copy.destination.endsWith("/")
          ? join(appDir, copy.destination, contextPath.split("/").pop()!)
          : join(appDir, copy.destination);
        mkdirSync(dirname(target), { recursive: true });
        // Build outputs come from this checkout's own build (npm ci runs it), as the builder stage makes them.
        copyContextPath(REPO_ROOT, contextPath, target, copy.from === "builder" ? () => false : isIgnored);
      }
    }
    copyProductionPackages(REPO_ROOT, appDir);
  });
  afterAll(async () => {
    if (running !== undefined && running.process.exitCode === null) {
      running.process.kill("SIGKILL");
      await running.exited;
    }
    rmSync(appDir, { recursive: true, force: true });
  });

  /** Runs the image's entry point from the runtime file set with `args`, until its banner lists its services. */
  async function startEntryPoint(args: readonly string[], env: Record<string, string>): Promise<string> {
    const workdir = instructions(runtime, "WORKDIR")[0]!;
    const [, script] = JSON.parse(instructions(runtime, "ENTRYPOINT")[0]!) as string[];
    const process_ = spawn(process.execPath, [join(appDir, relative(workdir, script!)), ...args], {
      cwd: appDir,
      env: { PATH: process.env.PATH, HOME: appDir, ...runtimeEnv, KEPLER_MODEL_HOST: "127.0.0.1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    process_.stdout.on("data", (data: Buffer) => {
      output += data.toString();
    });
    process_.stderr.on("data", (data: Buffer) => {
      output += data.toString();
    });
    const exited = new Promise<number | null>((resolve) => process_.on("exit", (code) => resolve(code)));
    running = { process: process_, exited };
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (output.includes("Stop with Ctrl-C")) resolve();
      };
      process_.stdout.on("data", check);
      exited.then((code) => reject(new Error(`exited ${code} before listening:\n${output}`)));
    });
    return output;
  }

  it("start every service with the image's entry point and production packages only, and stop on SIGTERM", async () => {
    const cmd = JSON.parse(instructions(runtime, "CMD")[0]!) as string[];
    const ports = Object.fromEntries(SERVICE_NAMES.map((name) => [`KEPLER_MODEL_${name.toUpperCase()}_PORT`, "0"]));
    const output = await startEntryPoint(cmd, { MODEL_PATH: join(appDir, "models"), ...ports, KEPLER_MODEL_METRICS_PORT: "0" });
    const { process: process_, exited } = running!;

    const addresses: Record<string, string> = Object.fromEntries(
      [...output.matchAll(/^ {2}(\w+) +(127\.0\.0\.1:\d+)$/gm)].map((m) => [m[1]!, m[2]!]),
    );
    expect(Object.keys(addresses).sort()).toEqual([...SERVICE_NAMES].sort());
    for (const [name, address] of Object.entries(addresses)) {
      const channel = createChannel(address);
      const health = createClient(HealthDefinition, channel);
      const fullName = `kepler.model.v1.${name[0]!.toUpperCase()}${name.slice(1)}Service`;
      expect((await health.check({ service: fullName })).status, fullName).toBe(1);
      channel.close();
    }
    process_.kill("SIGTERM");
    expect(await exited).toBe(0);
  });

  it("takes tokens as the Dockerfile documents: the file named in KEPLER_MODEL_AUTH_TOKENS_FILE, no write without one", async () => {
    const text = readFileSync(join(REPO_ROOT, "Dockerfile"), "utf8");
    const mounted = /-v "[^"]*:([^":]+):ro"/.exec(text)?.[1];
    const [, variable, path] = /-e (\w+)=(\S+)/.exec(text) ?? [];
    expect(variable).toBe(authTokensFileKey.env);
    expect(path, "the variable names the mounted file").toBe(mounted);
    const tokens = join(appDir, "tokens");
    writeFileSync(tokens, "ci:ci-write-token-0123456789:write\n");
    const output = await startEntryPoint(["serve", "registry"], {
      MODEL_PATH: join(appDir, "models-tokens"),
      KEPLER_MODEL_REGISTRY_PORT: "0",
      KEPLER_MODEL_METRICS_PORT: "-1",
      [variable!]: tokens,
    });
    const address = /^ {2}registry +(127\.0\.0\.1:\d+)$/m.exec(output)![1]!;
    const channel = createChannel(address);
    try {
      const registry = createClient(RegistryServiceDefinition, channel);
      const refused = await registry.putPipelineMetadata({}).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused instanceof ClientError && refused.code, String(refused)).toBe(Status.UNAUTHENTICATED);
      const withToken = await registry.putPipelineMetadata({}, { metadata: Metadata({ authorization: "Bearer ci-write-token-0123456789" }) }).then(
        () => Status.OK,
        (error: unknown) => (error instanceof ClientError ? error.code : error),
      );
      expect(withToken, "past authentication").not.toBe(Status.UNAUTHENTICATED);
    } finally {
      channel.close();
      running!.process.kill("SIGTERM");
      expect(await running!.exited).toBe(0);
    }
  });
});
