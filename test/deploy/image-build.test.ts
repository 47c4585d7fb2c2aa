// The container image, really built and run: a Node base made from Debian packages
// (deploy/image/build-base.sh, mmdebstrap) is imported into podman, the Dockerfile is built on it
// (NODE_IMAGE), and the container runs the six services on an empty volume: every service answers
// reflection and health SERVING, the default models are trained into the volume and served by
// Estimate, and SIGTERM stops it with exit code 0. About 4 minutes; CI runs it (.ci/run installs podman,
// buildah, mmdebstrap, runc, fuse-overlayfs, uidmap); locally KEPLER_MODEL_SKIP_IMAGE_BUILD=1 skips it.
import { execFile } from "node:child_process";
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import * as grpc from "@grpc/grpc-js";
import { GrpcReflection } from "grpc-js-reflection-client";
import { createChannel, createClient } from "nice-grpc";
import { HealthDefinition } from "nice-grpc-server-health";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEstimatorClient } from "../../services/estimator/client.js";
import { OutputType } from "../../services/generated/kepler/model/v1/types.js";
import { SERVICE_NAMES } from "../../services/kit/config/service-addresses.js";
import { REPO_ROOT } from "../support/child-process.js";
import { needs, requirement, systemTool } from "../support/system-tools.js";

const run = promisify(execFile);
const optedOut = process.env.KEPLER_MODEL_SKIP_IMAGE_BUILD === "1" ? "KEPLER_MODEL_SKIP_IMAGE_BUILD=1 skips the image build" : undefined;
const IMAGE_TOOLS = [systemTool("podman"), systemTool("mmdebstrap"), systemTool("runc"), requirement("image build", optedOut)];
const runs = IMAGE_TOOLS.every((tool) => tool.available);

const SERVING = 1; // grpc.health.v1.HealthCheckResponse.ServingStatus
const BASE = "localhost/kepler-model-node:test";
const IMAGE = "localhost/kepler-model:test";
const CONTAINER = `kepler-model-test-${process.pid}`;

let folder: string;
let volume: string;
let ports: Record<string, number>;
const timings: Record<string, number> = {};

/** podman with private storage in the test folder and the settings this machine needs (components.md). */
async function podman(args: readonly string[], timeoutMs = 600_000): Promise<string> {
  const { stdout } = await run(
    "podman",
    [
      "--root",
      join(folder, "storage"),
      "--runroot",
      join(folder, "run"),
      "--storage-driver",
      "vfs",
      "--cgroup-manager",
      "cgroupfs",
      "--runtime",
      "runc",
      ...args,
    ],
    { env: { ...process.env, CONTAINERS_CONF: join(folder, "containers.conf") }, maxBuffer: 64 * 1024 * 1024, timeout: timeoutMs },
  );
  return stdout;
}

async function timed<T>(step: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    timings[step] = Math.round((performance.now() - started) / 1000);
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0));
    });
  });
}

beforeAll(async () => {
  if (!runs) return;
  folder = await mkdtemp(join(tmpdir(), "image-build-"));
  // This machine cannot raise rlimits: no default ulimits, no pids limit.
  await writeFile(join(folder, "containers.conf"), "[containers]\ndefault_ulimits = []\npids_limit = 0\n");
  volume = join(folder, "models");
  await mkdir(volume);
  await chmod(volume, 0o777); // the image runs as uid 1000
  ports = {};
  for (const name of SERVICE_NAMES) ports[name] = await freePort();
  await timed("base", () => run(join(REPO_ROOT, "deploy/image/build-base.sh"), [join(folder, "base.tar")], { timeout: 600_000 }));
  await timed("import", () => podman(["import", join(folder, "base.tar"), BASE]));
  await timed("build", () =>
    podman(["build", "--network", "host", "--build-arg", `NODE_IMAGE=${BASE}`, "-t", IMAGE, "-f", join(REPO_ROOT, "Dockerfile"), REPO_ROOT], 900_000),
  );
  const portFlags = [...SERVICE_NAMES.flatMap((name) => [`--${name}-port`, String(ports[name])]), "--metrics-port", "0"];
  await podman(["run", "-d", "--name", CONTAINER, "--network", "host", "-v", `${volume}:/var/lib/kepler-model/models`, IMAGE, "serve", ...portFlags]);
}, 1_500_000);

afterAll(async () => {
  if (folder === undefined) return;
  await podman(["rm", "-f", CONTAINER]).catch(() => undefined);
  await podman(["rmi", "-f", IMAGE, BASE]).catch(() => undefined);
  // vfs layers are plain folders inside the test folder.
  await rm(folder, { recursive: true, force: true });
  console.log(`image build test timings (s): ${JSON.stringify(timings)}`);
  // Removing the image and its vfs layers (plain folder copies) takes a minute or more on a slow disk.
}, 300_000);

async function waitServing(address: string): Promise<void> {
  const channel = createChannel(address);
  const health = createClient(HealthDefinition, channel);
  try {
    for (let attempt = 0; ; attempt++) {
      const status = await health.check({ service: "" }, { signal: AbortSignal.timeout(2000) }).then(
        (response) => response.status,
        () => undefined,
      );
      if (status === SERVING) return;
      if (attempt > 120) throw new Error(`${address} not SERVING after 120 s (last: ${status})`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  } finally {
    channel.close();
  }
}

describe("the container image, built with podman on a Debian-made base", needs(...IMAGE_TOOLS), () => {
  it("serves all six services (reflection + health SERVING), trains the default models on the empty volume, and Estimate answers", async () => {
    for (const name of SERVICE_NAMES) {
      const address = `127.0.0.1:${ports[name]}`;
      await waitServing(address);
      const reflection = new GrpcReflection(address, grpc.credentials.createInsecure(), {}, "v1");
      const services = await reflection.listServices();
      expect(services, name).toContain("grpc.health.v1.Health");
      expect(services.some((service) => service.startsWith("kepler.model.v1.")), name).toBe(true);
    }
    // The estimator is SERVING only once the default models are published.
    expect((await readdir(volume)).sort()).toContain("default");
    const estimator = createEstimatorClient(`127.0.0.1:${ports.estimator}`);
    try {
      const response = await estimator.client.estimate({
        featureNames: ["cpu_cycles", "cpu_instructions", "cache_miss"],
        rowCount: 1,
        values: Buffer.from(Float64Array.from([2e9, 2.5e9, 4e6]).buffer),
        outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
        energySource: "rapl-sysfs",
        trainerName: "",
        pipelineName: "",
      });
      expect(response.componentPowers.map((c) => c.component)).toEqual(["package", "core", "uncore", "dram"]);
      expect(response.componentPowers[0]!.powerWatts[0]).toBeGreaterThan(0);
    } finally {
      estimator.close();
    }
  }, 300_000);

  it("has the kepler-model CLI on PATH for Task steps (the Tekton s3-push task runs `kepler-model s3-push`)", async () => {
    const help = await podman(["exec", CONTAINER, "kepler-model", "s3-push", "--help"]);
    expect(help).toMatch(/--to s3:\/\/bucket\/prefix/);
  });

  it("stops on SIGTERM with exit code 0", async () => {
    await podman(["stop", "--time", "30", CONTAINER]);
    expect((await podman(["inspect", CONTAINER, "--format", "{{.State.ExitCode}}"])).trim()).toBe("0");
  }, 120_000);
});
