// The exporter's side of the model lifecycle (EP-003): with --model-public-keys-file a signed archive is run
// and a tampered or unsigned one is refused before use, with the reason logged; /metrics shows the model's
// version, interval width, training rows and time, the inference duration and feature collection errors.
import { createHash, generateKeyPairSync } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createComponentPredictor } from "../../services/estimator/domain/predictor.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { createZip, keyIdOf, readZip, signArchiveEntries, type ZipEntry } from "../../services/models/index.js";
import { fileModelProvider, VmExporter } from "../../services/vm-power/index.js";
import { MadeUpGuest, writeVmModel } from "./support/modelled-vm.js";
import { useDaemonScratch, modelFilePower } from "./support/test-daemon.js";
import { MODEL_A } from "./support/tree-scenario.js";

const keys = generateKeyPairSync("ed25519");
const trusted = new Map([[keyIdOf(keys.publicKey), keys.publicKey]]);
const signingKey = { keyId: keyIdOf(keys.publicKey), privateKey: keys.privateKey };
/** 19 held-out residuals 0.1 .. 1.9 W: at 90 % the order statistic 0.9 x 20 = 18th, 1.8 W, so the width is 3.6 W. */
const RESIDUALS = Array.from({ length: 19 }, (_, i) => (i + 1) / 10);

// The test VM model with a training record and calibration residuals in its metadata.json.
function modelEntries(path: string): ZipEntry[] {
  writeVmModel(path, MODEL_A);
  return readZip(readFileSync(path)).map((entry) => {
    if (entry.name !== "metadata.json") return entry;
    const metadata = JSON.parse(Buffer.from(entry.data).toString()) as Record<string, unknown>;
    metadata.training = { row_count: 1234, time_seconds: 1_700_000_000 };
    metadata.calibration = { method: "split_conformal", rows: "held_out", abs_residuals: { package: RESIDUALS } };
    return { name: entry.name, data: Buffer.from(JSON.stringify(metadata)) };
  });
}

function logged(): { warnings: string[]; logger: ReturnType<typeof silentLogger> } {
  const warnings: string[] = [];
  const logger = { ...silentLogger(), warn: (fields: { reason?: string }) => void warnings.push(String(fields.reason)) };
  return { warnings, logger: logger as unknown as ReturnType<typeof silentLogger> };
}

describe("exporter model lifecycle", () => {
  const scratch = useDaemonScratch("exporter-lifecycle-");

  it("refuses a tampered and an unsigned archive before use, naming why", async () => {
    const dir = scratch.dir;
    const path = join(dir, "model.zip");
    const signed = signArchiveEntries(modelEntries(path), signingKey);
    const tampered = signed.map((e) =>
      e.name === "metadata.json"
        ? { name: e.name, data: Buffer.from(Buffer.from(e.data).toString().replace("1234", "1235")) }
        : e,
    );
    writeFileSync(path, createZip(tampered));
    const { warnings, logger } = logged();
    const guest = new MadeUpGuest();
    const exporter = new VmExporter({
      read: async () => guest.snapshot(1000, 0.25),
      power: modelFilePower(path, trusted),
      nodeName: "vm-1",
      logger,
    });
    expect(await exporter.refreshModel()).toBe(false);
    expect(exporter.currentModel).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      new RegExp(`^archive ${path} refused: entry metadata\\.json changed after signing \\(sha256 [0-9a-f]{12}\\.\\.\\.\\)$`),
    );
    writeFileSync(path, createZip(signed.filter((e) => e.name !== "signature.json")));
    await expect(fileModelProvider(path, createComponentPredictor, trusted).load()).rejects.toThrow(
      `archive ${path} refused: not signed (no signature.json) and public keys are configured`,
    );
  });

  it("runs a signed archive and shows EP-003's metrics", async () => {
    const dir = scratch.dir;
    const path = join(dir, "model.zip");
    const zip = createZip(signArchiveEntries(modelEntries(path), signingKey));
    writeFileSync(path, zip);
    const guest = new MadeUpGuest();
    let seconds = 1000;
    let failNextRead = false;
    const daemon = await scratch.start({
      read: async () => {
        if (failNextRead) {
          failNextRead = false;
          throw new Error("node exporter not up yet");
        }
        return guest.snapshot((seconds += 5), 0.25);
      },
      power: modelFilePower(path, trusted),
    });
    await daemon.exporter.refreshModel();
    await daemon.exporter.tick();
    expect(await daemon.exporter.tick()).toBe("ok");
    failNextRead = true;
    expect(await daemon.exporter.tick()).toBe("error");
    const metrics = await (await fetch(`http://127.0.0.1:${daemon.port}/metrics`)).text();
    const version = createHash("sha256").update(zip).digest("hex").slice(0, 12);
    const value = (series: string) => Number(new RegExp(`^${series.replace(/[{}]/g, "\\$&")} (\\S+)$`, "m").exec(metrics)?.[1]);
    expect(metrics).toContain(
      `kepler_model_exporter_model_version_info{model="LinearRegressionTrainer_0",model_version="${version}"} 1`,
    );
    expect(value('kepler_model_exporter_interval_width_watts{zone="package",level="0.9"}')).toBeCloseTo(3.6, 12);
    expect(metrics).not.toContain('kepler_model_exporter_interval_width_watts{zone="core"');
    expect(value("kepler_model_exporter_training_rows")).toBe(1234);
    expect(value("kepler_model_exporter_trained_timestamp_seconds")).toBe(1_700_000_000);
    expect(value("kepler_model_exporter_feature_errors_total")).toBe(1);
    expect(value("kepler_model_exporter_inference_seconds")).toBeGreaterThan(0);
  });
});
