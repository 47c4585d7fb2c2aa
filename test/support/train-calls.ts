// What the trainer tests do again and again: start a registry of their own (and a trainer publishing to it),
// stream a Train call (the options message, then a table in chunks) and keep the per-trainer results.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DataTable } from "../../services/domain/data-table.js";
import { TrainOptions, type TrainRequest, type TrainerResult } from "../../services/generated/kepler/model/v1/trainer_service.js";
import { OutputType } from "../../services/generated/kepler/model/v1/types.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import type { ServerHandle } from "../../services/kit/transport/grpc-server.js";
import { tableToChunks } from "../../services/kit/transport/table-codec.js";
import { readRegistryConfig } from "../../services/registry/config.js";
import { startRegistry } from "../../services/registry/main.js";
import { createTrainerClient } from "../../services/trainer/client.js";
import { type TrainerConfig, readTrainerConfig } from "../../services/trainer/config.js";
import { startTrainer } from "../../services/trainer/main.js";
import { type GoldenSource, goldenTestTimestamps } from "../fixtures/trainer/fixtures.js";

/** A real registry on 127.0.0.1:0 over `modelPath`, with no rescans (the test alone writes the folder). */
export function startLocalRegistry(modelPath: string): Promise<ServerHandle> {
  return startRegistry(
    { ...readRegistryConfig({}), host: "127.0.0.1", port: 0, modelPath, rescanIntervalMs: 0 },
    { logger: silentLogger() },
  );
}

/** A registry and a trainer publishing to it, each over its own temporary folder. */
export interface TrainerAndRegistry {
  readonly registry: ServerHandle;
  readonly trainer: ServerHandle;
  readonly registryPath: string;
  readonly trainerPath: string;
  /** Trains `table` with `options` on the trainer and returns its results. */
  train(options: Partial<TrainOptions>, table: DataTable): Promise<TrainerResult[]>;
  /** Closes both servers and removes both folders. */
  close(): Promise<void>;
}

/** Starts a registry and a trainer whose archives go through it; `settings` adds to the trainer's config. */
export async function startTrainerAndRegistry(
  folderPrefix: string,
  settings: Partial<TrainerConfig> = {},
): Promise<TrainerAndRegistry> {
  const registryPath = await mkdtemp(join(tmpdir(), `${folderPrefix}-registry-`));
  const trainerPath = await mkdtemp(join(tmpdir(), `${folderPrefix}-local-`));
  const registry = await startLocalRegistry(registryPath);
  const trainer = await startTrainer(
    {
      ...readTrainerConfig({}),
      host: "127.0.0.1",
      port: 0,
      modelPath: trainerPath,
      registryAddress: registry.address,
      ...settings,
    },
    { logger: silentLogger() },
  );
  return {
    registry,
    trainer,
    registryPath,
    trainerPath,
    train: (options, table) => trainResults(trainer.address, trainRequests(options, table)),
    async close() {
      await trainer.close();
      await registry.close();
      await rm(registryPath, { recursive: true, force: true });
      await rm(trainerPath, { recursive: true, force: true });
    },
  };
}

/** Train options for CounterOnly AbsPower models on a golden source, held out by its golden test split. */
export function goldenTrainOptions(
  source: GoldenSource,
  trainerNames: readonly string[],
  pipelineName: string,
): Partial<TrainOptions> {
  return {
    featureGroup: "CounterOnly",
    energySource: source,
    outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
    trainerNames: [...trainerNames],
    testTimestampsSeconds: goldenTestTimestamps(source),
    pipelineName,
  };
}

/** A Train request stream: `options` first, then `table` in chunks of `rowsPerChunk` rows. */
export async function* trainRequests(
  options: Partial<TrainOptions>,
  table: DataTable,
  rowsPerChunk = 100,
): AsyncGenerator<TrainRequest> {
  yield { content: { $case: "options", value: TrainOptions.fromPartial(options) } };
  for (const chunk of tableToChunks(table, rowsPerChunk)) yield { content: { $case: "chunk", value: chunk } };
}

/** Calls Train on the trainer at `address` and returns the results it streams back, in order. */
export async function trainResults(address: string, requests: AsyncIterable<TrainRequest>): Promise<TrainerResult[]> {
  const peer = createTrainerClient(address);
  try {
    const results: TrainerResult[] = [];
    for await (const response of peer.client.train(requests)) {
      if (response.content?.$case === "result") results.push(response.content.value);
    }
    return results;
  } finally {
    peer.close();
  }
}
