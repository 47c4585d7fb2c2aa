// The container image, really built and run: a Node base made from Debian packages
// (deploy/image/build-base.sh, mmdebstrap) is imported into podman, the Dockerfile is built on it
// (NODE_IMAGE), and the container runs the six services on an empty volume: every service answers
// reflection and health SERVING, the default models are trained into the volume and served by
// Estimate, and SIGTERM stops it with exit code 0. The build takes about 3 minutes: in a whole run the
// global setup starts it in the background (test/support/image-build-setup.ts) and this file, run last,
// finds it ready; run alone, it builds first. CI runs it (.ci/run installs podman, buildah, mmdebstrap, runc,
// fuse-overlayfs, uidmap); locally KEPLER_MODEL_SKIP_IMAGE_BUILD=1 skips it.
import { chmod, mkdtemp, readdir } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { GrpcReflection } from "grpc-js-reflection-client";
import { createChannel, createClient } from "nice-grpc";
import { HealthDefinition } from "nice-grpc-server-health";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createEstimatorClient } from "../../services/estimator/client.js";
import { OutputType } from "../../services/generated/kepler/model/v1/types.js";
import { SERVICE_NAMES } from "../../services/kit/config/service-addresses.js";
import {
  buildImage,
  createImageFolder,
  IMAGE,
  IMAGE_TOOLS,
  type ImageBuildTimings,
  imageBuildRuns,
  podman,
  removeImageFolder,
  waitForImageBuild,
} from "../support/image-build.js";
import { needs } from "../support/system-tools.js";

const SERVING = 1; // grpc.health.v1.HealthCheckResponse.ServingStatus
const CONTAINER = `kepler-model-test-${process.pid}`;

let folder: string | undefined;
/** Whether this file made the folder (else the global setup did, and its teardown removes it). */
let ownsFolder = false;
let volume: string;
let ports: Record<string, number>;
let timings: ImageBuildTimings = {};

const inFolder = (args: readonly string[], timeoutMs?: number) => podman(folder!, args, { timeoutMs });

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
  if (!imageBuildRuns) return;
  const background = inject("imageBuildFolder");
  if (background !== undefined) {
    folder = background;
    const started = performance.now();
    timings = await waitForImageBuild(folder, 1_500_000);
    timings.waited = Math.round((performance.now() - started) / 1000);
  } else {
    folder = await createImageFolder();
    ownsFolder = true;
    timings = await buildImage(folder);
  }
  // An empty volume of this run's own (a watch-mode rerun finds the image the global setup built).
  volume = await mkdtemp(join(folder, "models-"));
  await chmod(volume, 0o777); // the image runs as uid 1000
  ports = {};
  for (const name of SERVICE_NAMES) ports[name] = await freePort();
  const portFlags = [...SERVICE_NAMES.flatMap((name) => [`--${name}-port`, String(ports[name])]), "--metrics-port", "0"];
  await inFolder(["run", "-d", "--name", CONTAINER, "--network", "host", "-v", `${volume}:/var/lib/kepler-model/models`, IMAGE, "serve", ...portFlags]);
}, 1_600_000);

afterAll(async () => {
  if (folder === undefined) return;
  console.log(`image build test timings (s): ${JSON.stringify(timings)}`);
  await inFolder(["rm", "-f", CONTAINER]).catch(() => undefined);
  // The image and its layers are plain folders and mounts inside the test folder.
  if (ownsFolder) await removeImageFolder(folder);
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
    const help = await inFolder(["exec", CONTAINER, "kepler-model", "s3-push", "--help"]);
    expect(help).toMatch(/--to s3:\/\/bucket\/prefix/);
  });

  it("stops on SIGTERM with exit code 0", async () => {
    await inFolder(["stop", "--time", "30", CONTAINER]);
    expect((await inFolder(["inspect", CONTAINER, "--format", "{{.State.ExitCode}}"])).trim()).toBe("0");
  }, 120_000);
});
