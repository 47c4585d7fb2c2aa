// Online training from the host's own number: a host-Kepler stand-in whose VM watts follow the guest's CPU
// use, scraped by a real Prometheus; the exporter serves the host's watts and keeps each tick as a training
// row; its online training (configured from the CLI's flags) trains the rows and publishes through a real
// registry that signs and keeps versions; the exporter, which verifies signatures, serves the new model at
// once, a second round publishes a second version (the first kept for rollback), and when Prometheus goes
// away the exporter's watts are the trained model's, close to what the host measured at that CPU use.
import { generateKeyPairSync } from "node:crypto";
import { readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { onlineTrainingOf } from "../../cli/commands/exporter-online.js";
import { featuresOf } from "../../services/domain/feature-groups.js";
import { createComponentPredictor } from "../../services/estimator/domain/predictor.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import type { ServerHandle } from "../../services/kit/transport/grpc-server.js";
import { readTrustedKeys } from "../../services/models/index.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { startRegistry } from "../../services/registry/main.js";
import {
  type ExporterDaemonHandle,
  prometheusHostPower,
  registryModelProvider,
  selectableFeatures,
  startExporterDaemon,
  tickIntoTree,
  vmSpec,
  ZONES,
} from "../../services/vm-power/index.js";
import { describeWithPrometheus, type PrometheusInstance, startPrometheus } from "../support/prometheus.js";
import { MadeUpGuest } from "./support/modelled-vm.js";
import { scratchFolder } from "./support/tree-scenario.js";

const PIPELINE = "vm-kepler-0.10";
// The host's watts of this VM per zone: idle + per x guest CPU user fraction.
const IDLE = [6, 3, 1.5, 1];
const PER_USER = [40, 30, 4, 6];
const hostWatts = (userRatio: number) => ZONES.map((_, z) => IDLE[z]! + PER_USER[z]! * userRatio);

// The host's Kepler: the VM's joules integrating hostWatts(the guest's current user fraction), each
// sample stamped with the millisecond it describes.
class HostKepler {
  private joules = ZONES.map(() => 1000);
  private lastMs = Date.now();
  private watts = hostWatts(0);
  server: Server | undefined;

  setUserRatio(userRatio: number): void {
    this.advance();
    this.watts = hostWatts(userRatio);
  }

  private advance(): number {
    const ms = Date.now();
    this.joules = this.joules.map((j, z) => j + (this.watts[z]! * (ms - this.lastMs)) / 1000);
    this.lastMs = ms;
    return ms;
  }

  start(): Promise<string> {
    this.server = createServer((_, response) => {
      const ms = this.advance();
      const lines = ZONES.map((zone, z) => `kepler_vm_cpu_joules_total{vm_id="vm-1",zone="${zone}"} ${this.joules[z]} ${ms}`);
      response.end(`# TYPE kepler_vm_cpu_joules_total counter\n${lines.join("\n")}\n`);
    });
    return new Promise((resolve) =>
      this.server!.listen(0, "127.0.0.1", () => resolve(`127.0.0.1:${(this.server!.address() as AddressInfo).port}`)),
    );
  }
}

let dir = "";
const kepler = new HostKepler();
let prometheus: PrometheusInstance | undefined;
let registry: ServerHandle;
let client: ReturnType<typeof createRegistryClient>;
let daemon: ExporterDaemonHandle | undefined;

beforeAll(async () => {
  dir = scratchFolder("online-training-");
  const keys = generateKeyPairSync("ed25519");
  writeFileSync(join(dir, "signing.pem"), keys.privateKey.export({ type: "pkcs8", format: "pem" }));
  writeFileSync(join(dir, "trusted.pem"), keys.publicKey.export({ type: "spki", format: "pem" }));
  registry = await startRegistry(
    {
      host: "127.0.0.1",
      port: 0,
      modelPath: join(dir, "models"),
      rescanIntervalMs: 0,
      sourcePipelines: [],
      keptModelVersions: 3,
      modelSigningKeyFile: join(dir, "signing.pem"),
    },
    { logger: silentLogger() },
  );
  client = createRegistryClient(registry.address);
});

afterAll(async () => {
  await daemon?.close();
  await prometheus?.stop();
  kepler.server?.close();
  client?.close();
  await registry?.close();
  rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("exporter online-training flags", () => {
  it("are off by default, and need the registry to publish to and the host's number to train from", () => {
    const context = {
      registry: client,
      hasHostPower: true,
      pipelineName: PIPELINE,
      featureGroup: "GuestOSOnly" as const,
      features: featuresOf("GuestOSOnly"),
      machine: "vm-1",
      spec: vmSpec(4, 8 * 2 ** 30),
    };
    expect(onlineTrainingOf({}, context)).toBeUndefined();
    expect(onlineTrainingOf({ "online-training-seconds": "600" }, context)?.config).toMatchObject({
      intervalSeconds: 600,
      minRows: 120,
      maxRows: 17_280,
      trainerNames: ["LinearRegressionTrainer", "SGDRegressorTrainer"],
    });
    expect(() => onlineTrainingOf({ "online-training-seconds": "600" }, { ...context, hasHostPower: false })).toThrow(
      "--online-training-seconds trains from the host's number: give --host-prometheus-url and --host-vm-selector",
    );
    expect(() => onlineTrainingOf({ "online-training-seconds": "600" }, { ...context, registry: undefined })).toThrow(
      "--online-training-seconds publishes to --registry-address: give it",
    );
  });
});

describeWithPrometheus("online training from the host's own number", () => {
  it("publishes models trained on the host's series through the registry's lifecycle, served when the host goes away", async () => {
    prometheus = await startPrometheus({ scrapeTargets: [await kepler.start()] });
    const guest = new MadeUpGuest();
    let userRatio = 0.5;
    const spec = vmSpec(4, 8 * 2 ** 30);
    const features = featuresOf("GuestOSOnly");
    const onlineTraining = onlineTrainingOf(
      {
        "online-training-seconds": "3600",
        "online-training-min-rows": "12",
        "online-training-trainers": "LinearRegressionTrainer",
      },
      {
        registry: client,
        hasHostPower: true,
        pipelineName: PIPELINE,
        featureGroup: "GuestOSOnly",
        features,
        machine: "vm-1",
        spec,
      },
    );
    daemon = await startExporterDaemon(
      { intervalSeconds: 3600, refreshSeconds: 3600, host: "127.0.0.1", port: 0, nodeName: "vm-1", version: "9.9.9" },
      {
        read: async () => guest.snapshot(Date.now() / 1000, userRatio),
        power: {
          kind: "model",
          provider: registryModelProvider(
            client,
            { pipelineName: PIPELINE, featureNames: selectableFeatures(features, false), spec },
            createComponentPredictor,
            undefined,
            await readTrustedKeys(join(dir, "trusted.pem"), "trusted"),
          ),
        },
        hostPower: prometheusHostPower({
          prometheusUrl: prometheus.baseUrl,
          selector: 'vm_id="vm-1"',
          zones: ZONES,
          windowSeconds: 10,
          maxAgeSeconds: 5,
          timeoutMs: 1000,
        }),
        logger: silentLogger(),
        onlineTraining,
      },
    );
    const exporter = daemon.exporter;
    const online = daemon.onlineTraining!;
    expect(exporter.currentModel).toBeUndefined(); // nothing trained yet
    // Each period at one CPU use, long enough for two host samples inside it (scraped every second).
    const period = async (ratio: number, outcomes = ["ok"]) => {
      userRatio = ratio;
      kepler.setUserRatio(ratio);
      await sleep(2300);
      expect(outcomes).toContain(await tickIntoTree(exporter, undefined));
    };
    // Until Prometheus has two host samples, there is neither the host's number nor a model.
    for (let i = 0; i < 20 && exporter.status.source !== "host"; i++) await period(0.5, ["ok", "error"]);
    expect(exporter.status.source).toBe("host");
    const ratios = [0.1, 0.8, 0.3, 0.6, 0.2, 0.9, 0.4, 0.7, 0.15, 0.55, 0.35, 0.75, 0.25];
    for (const ratio of ratios) await period(ratio);
    expect(online.rows.count).toBeGreaterThanOrEqual(12);

    const first = await online.runOnce();
    expect(first.map((r) => [r.trainerName, r.outcome, r.failureReason])).toEqual([
      ["LinearRegressionTrainer", "succeeded", undefined],
    ]);
    const firstVersion = exporter.currentModel?.version;
    expect(exporter.currentModel?.name).toMatch(/^LinearRegressionTrainer_\d+$/);
    expect(exporter.currentModel?.facts.trainingRows).toBeGreaterThan(0);

    for (const ratio of [0.45, 0.85, 0.05]) await period(ratio);
    const second = await online.runOnce();
    expect(second.map((r) => r.outcome)).toEqual(["succeeded"]);
    expect(exporter.currentModel?.version).not.toBe(firstVersion);
    // The registry kept the first version for `models rollback`.
    const versions = join(dir, "models", PIPELINE, ".versions");
    const kept = readdirSync(versions, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith(".zip"));
    expect(kept).toHaveLength(1);
    expect(kept[0]).toContain(`-${firstVersion}.zip`);

    // The host goes away: the model trained from its series serves, close to what the host measured.
    await prometheus.stop();
    prometheus = undefined;
    await period(0.65);
    expect(exporter.status.source).toBe("model");
    const expected = hostWatts(0.65);
    exporter.status.watts!.forEach((w, z) => expect(Math.abs(w / expected[z]! - 1), ZONES[z]).toBeLessThan(0.05));
    const metrics = await (await fetch(`http://127.0.0.1:${daemon.port}/metrics`)).text();
    expect(metrics).toMatch(/zone="package",source="model",model="LinearRegressionTrainer_\d+"\}/);
    expect(metrics).toMatch(new RegExp(`^kepler_model_exporter_online_training_rows ${online.rows.count}$`, "m"));
    expect(metrics).toMatch(/^kepler_model_exporter_online_training_models_total\{outcome="published"\} 2$/m);
    expect(metrics).toMatch(/^kepler_model_exporter_online_training_models_total\{outcome="not_published"\} 0$/m);
    expect(metrics).toMatch(/^kepler_model_exporter_online_training_published_timestamp_seconds \d+/m);
  }, 180_000);
});
