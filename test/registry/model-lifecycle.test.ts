// End to end over real gRPC (EP-003's model lifecycle): a registry that signs what it publishes
// (--model-signing-key-file), gates publishes on held-out MAE (10 %) and keeps versions; the trainer's
// registry publisher; an estimator that trusts the registry's public key (--model-public-keys-file).
// A deliberately worse model (the recording's package power reversed in time) is refused and the trainer's
// result says why; `models rollback` restores the previous version and the estimator switches to it; a
// tampered archive is refused by the estimator.
import { generateKeyPairSync } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modelsCommand } from "../../cli/commands/models.js";
import { createEstimatorClient } from "../../services/estimator/client.js";
import { startEstimator } from "../../services/estimator/main.js";
import { OutputType } from "../../services/generated/kepler/model/v1/types.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { createZip, readZip } from "../../services/models/index.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { startRegistry } from "../../services/registry/main.js";
import { readTableCsv } from "../../services/trainer/domain/read-table-csv.js";
import { trainModels } from "../../services/trainer/domain/train-models.js";
import { createRegistryPublisher } from "../../services/trainer/registry-publisher.js";
import { startTestEstimator } from "../support/test-estimator.js";

const TABLE = new URL("../fixtures/trainer/extract_abs_rapl-sysfs_CounterOnly.csv", import.meta.url).pathname;
const COUNTER = ["cache_miss", "cpu_cycles", "cpu_instructions"];
const MODEL = "std/rapl-sysfs/AbsPower/CounterOnly/LinearRegressionTrainer_0";
const LOCATION = {
  pipelineName: "std",
  energySource: "rapl-sysfs",
  outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
  featureGroup: "CounterOnly",
  modelName: "LinearRegressionTrainer_0",
};
const ROW = [1300613.6666666667, 796627956.0000001, 826964507.0];

let dir: string;
let csv: string;
let registryHandle: Awaited<ReturnType<typeof startRegistry>>;
let estimatorHandle: Awaited<ReturnType<typeof startEstimator>>;
let registry: ReturnType<typeof createRegistryClient>;
let estimator: ReturnType<typeof createEstimatorClient>;

// The recording with one column transformed row by row (`package_power` reversed in time: a model of noise).
function withPackagePower(text: string, transform: (values: string[]) => string[]): string {
  const [header, ...rows] = text.trim().split("\n");
  const column = header!.split(",").indexOf("package_power");
  const cells = rows.map((row) => row.split(","));
  const changed = transform(cells.map((c) => c[column]!));
  return [header, ...cells.map((c, i) => [...c.slice(0, column), changed[i], ...c.slice(column + 1)].join(","))].join("\n");
}

async function train(text: string) {
  const { results } = await trainModels(
    {
      table: readTableCsv(text, TABLE),
      energySource: "rapl-sysfs",
      featureGroup: "CounterOnly",
      outputType: "AbsPower",
      trainerNames: ["LinearRegressionTrainer"],
      seed: 0,
      pipelineName: "std",
    },
    { publishModel: createRegistryPublisher(registry) },
  );
  return results[0]!;
}

async function estimatePackageWatts(trainerName = "LinearRegressionTrainer"): Promise<number> {
  const response = await estimator.client.estimate({
    featureNames: COUNTER,
    rowCount: 1,
    values: Buffer.from(Float64Array.from(ROW).buffer),
    outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
    energySource: "rapl-sysfs",
    trainerName,
    pipelineName: "std",
  });
  return response.componentPowers.find((c) => c.component === "package")!.powerWatts[0]!;
}

const heldOutPackageMae = async (): Promise<number> => {
  const { models } = await registry.client.listModels({ pipelineName: "std", pageSize: 10 });
  const metadata = JSON.parse(models[0]!.metadataJson) as { held_out: { components: { package: { mae: number } } } };
  return metadata.held_out.components.package.mae;
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "model-lifecycle-"));
  csv = await readFile(TABLE, "utf8");
  const keys = generateKeyPairSync("ed25519");
  await writeFile(join(dir, "signing.pem"), keys.privateKey.export({ type: "pkcs8", format: "pem" }));
  await writeFile(join(dir, "trusted.pem"), keys.publicKey.export({ type: "spki", format: "pem" }));
  registryHandle = await startRegistry(
    {
      host: "127.0.0.1",
      port: 0,
      modelPath: join(dir, "models"),
      rescanIntervalMs: 0,
      sourcePipelines: [],
      keptModelVersions: 3,
      publishGateMarginPercent: 10,
      modelSigningKeyFile: join(dir, "signing.pem"),
    },
    { logger: silentLogger() },
  );
  registry = createRegistryClient(registryHandle.address);
  estimatorHandle = await startTestEstimator(registryHandle.address, { modelPublicKeysFile: join(dir, "trusted.pem") });
  estimator = createEstimatorClient(estimatorHandle.address);
}, 60_000);

afterAll(async () => {
  estimator.close();
  registry.close();
  await estimatorHandle.close();
  await registryHandle.close();
  await rm(dir, { recursive: true, force: true });
});

/** `kepler-model models rollback MODEL` against the registry: its exit code and all it printed (stdout and stderr). */
async function rollback(): Promise<[number, string]> {
  let out = "";
  const stdout = new Writable({
    write(chunk, _encoding, done) {
      out += String(chunk);
      done();
    },
  });
  const code = await modelsCommand.run({
    positionals: ["rollback", MODEL],
    flags: { "registry-address": registryHandle.address },
    stdout,
    stderr: stdout,
    env: {},
  } as unknown as Parameters<typeof modelsCommand.run>[0]);
  return [code, out];
}

describe("model lifecycle", () => {
  let firstWatts: number;

  it("publishes a signed model the estimator verifies and serves", async () => {
    expect((await train(csv)).outcome).toBe("succeeded");
    const entries = readZip(await readFile(join(dir, "models", `${MODEL}.zip`)));
    expect(entries.map((e) => e.name)).toContain("signature.json");
    firstWatts = await estimatePackageWatts();
    expect(firstWatts).toBeGreaterThan(0);
  });

  it("the gate refuses a deliberately worse model and the trainer's result names both held-out errors", async () => {
    const servingMae = await heldOutPackageMae();
    const worse = await train(withPackagePower(csv, (values) => [...values].reverse()));
    expect(worse.outcome).toBe("failed");
    const match =
      /refused by the gate: held-out MAE of package (\d+\.\d{4}) W is worse than the serving version's (\d+\.\d{4}) W by more than 10 % \(limit (\d+\.\d{4}) W\)/.exec(
        worse.failureReason ?? "",
      );
    expect(match, worse.failureReason).not.toBeNull();
    expect(Number(match![2])).toBeCloseTo(servingMae, 4);
    expect(Number(match![3])).toBeCloseTo(servingMae * 1.1, 4);
    expect(Number(match![1])).toBeGreaterThan(servingMae * 1.1);
    expect(await heldOutPackageMae()).toBe(servingMae);
  });

  it("`models rollback` restores the previous version and the estimator switches to it", async () => {
    // A second version within the margin: the same recording with package power 2 % higher.
    const second = await train(withPackagePower(csv, (values) => values.map((v) => String(Number(v) * 1.02))));
    expect(second.outcome).toBe("succeeded");
    let secondWatts = await estimatePackageWatts();
    for (let i = 0; i < 100 && secondWatts === firstWatts; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      secondWatts = await estimatePackageWatts();
    }
    expect(secondWatts).not.toBe(firstWatts);
    expect(await rollback()).toEqual([
      0,
      expect.stringMatching(
        /^rolled back std\/rapl-sysfs\/AbsPower\/CounterOnly\/LinearRegressionTrainer_0 from [0-9a-f]{12} to [0-9a-f]{12}; 0 earlier versions kept\n$/,
      ),
    ]);
    // Nothing earlier is kept now: a second rollback fails, saying so.
    expect(await rollback()).toEqual([
      1,
      `kepler-model models rollback: FAILED_PRECONDITION: model ${MODEL} has no earlier version to roll back to\n`,
    ]);
    let watts = await estimatePackageWatts();
    for (let i = 0; i < 100 && watts !== firstWatts; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      watts = await estimatePackageWatts();
    }
    expect(watts).toBe(firstWatts);
  });

  it("a tampered archive is refused by the estimator, naming the changed entry", async () => {
    const path = join(dir, "models", `${MODEL}.zip`);
    const entries = readZip(await readFile(path)).map((e) =>
      e.name === "weight.json"
        ? {
            name: e.name,
            data: Buffer.from(
              Buffer.from(e.data)
                .toString()
                .replace(/"All_Weights"/, '"All_Weights" '),
            ),
          }
        : e,
    );
    await writeFile(path, createZip(entries));
    // Another trainer filter is another cache entry: the estimator loads the archive again.
    const refused = await estimatePackageWatts("").catch((error: unknown) => error as Error);
    expect(String((refused as { details?: string }).details)).toMatch(
      /^archive std\/rapl-sysfs\/CounterOnly\/LinearRegressionTrainer_0\.zip refused: entry weight\.json changed after signing \(sha256 [0-9a-f]{12}\.\.\.\)$/,
    );
    void LOCATION;
  });
});
