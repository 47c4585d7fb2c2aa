// `kepler-model models list|best|import|export`: the registry's models from the command line.
import { writeFile } from "node:fs/promises";
import { ClientError, Status } from "nice-grpc";
import { readConfig } from "../../services/kit/config/config-schema.js";
import { peerAddressKey } from "../../services/kit/config/service-addresses.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { type Command, UsageError } from "../command.js";
import { type Flags, numberFlag, textFlag } from "../flag-readers.js";
import { DEFAULT_MAX_MAE, DEFAULT_MAX_MAPE, gateExportedPipeline } from "../export-gate.js";
import { CLIENT_SECURITY_FLAGS, commandConnection } from "../client-security.js";
import { COMMON_FLAGS, withNote } from "../common-flags.js";
import { readImportSource, S3_FLAGS } from "../import-source.js";
import { MODELS_BACKUP_FLAGS, runModelsBackup } from "./models-backup.js";
import { rollbackModelCommand } from "./models-rollback.js";
import { listBestModels, listModels, readModelFilters } from "./models-list.js";
import { byteChunks } from "../../services/kit/transport/byte-chunks.js";

type Registry = ReturnType<typeof createRegistryClient>["client"];

async function importPipeline(
  registry: Registry,
  flags: Flags,
  path: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  if (path === undefined)
    throw new UsageError("models import needs a pipeline folder or zip, an https:// zip or an s3:// prefix");
  const source = await readImportSource(path, flags, env);
  const name = textFlag(flags, "pipeline") ?? source.name;
  const bytes = Buffer.from(source.zip.buffer, source.zip.byteOffset, source.zip.byteLength);
  const response = await registry.importPipeline(
    (async function* () {
      yield {
        content: {
          $case: "header" as const,
          value: { pipelineName: name, serverPath: "", replace: flags.replace === true, force: flags.force === true },
        },
      };
      for (const chunk of byteChunks(bytes)) yield { content: { $case: "archiveChunk" as const, value: chunk } };
    })(),
  );
  const lines = [
    `imported pipeline ${response.pipeline?.pipelineName}: ${response.importedModelCount} models served, ${response.skippedModels.length} skipped`,
  ];
  for (const skipped of response.skippedModels) lines.push(`  skipped ${skipped.path}: ${skipped.reason}`);
  return `${lines.join("\n")}\n`;
}

// The reference's "YYYY-MM-DD HH:MM:SS" (UTC).
const pythonTime = (date: Date) => date.toISOString().slice(0, 19).replace("T", " ");

function collectTime(flags: Flags): string {
  const value = textFlag(flags, "collect-date");
  if (value === undefined) return "";
  const date = new Date(/^\d{4}-\d\d-\d\d$/.test(value) ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(date.getTime()))
    throw new UsageError(`--collect-date: expected a date such as 2024-07-25 or an ISO 8601 time, got "${value}"`);
  return pythonTime(date);
}

async function exportPipeline(registry: Registry, flags: Flags, pipeline: string | undefined): Promise<string> {
  if (pipeline === undefined) throw new UsageError("models export needs a pipeline name");
  const options = {
    pipelineName: pipeline,
    maxMape: numberFlag(flags, "max-mape", { min: 0 }) ?? DEFAULT_MAX_MAPE,
    maxMae: numberFlag(flags, "max-mae", { min: 0 }) ?? DEFAULT_MAX_MAE,
    acceptMape: numberFlag(flags, "accept-mape", { min: 0 }),
    acceptMae: numberFlag(flags, "accept-mae", { min: 0 }),
    publisher: textFlag(flags, "publisher") ?? "",
    collectTime: collectTime(flags),
    exportTime: pythonTime(new Date()),
  };
  const chunks: Buffer[] = [];
  for await (const message of registry.exportPipeline({ pipelineName: pipeline })) chunks.push(message.archiveChunk);
  const output = textFlag(flags, "out") ?? `${pipeline}.zip`;
  const { archive, models } = gateExportedPipeline(Buffer.concat(chunks), options);
  await writeFile(output, archive);
  const dropped = models.filter((m) => m.droppedBecause !== undefined);
  const lines = [
    `wrote ${output} (${archive.byteLength} bytes): ${models.length - dropped.length} models exported, ${dropped.length} dropped`,
  ];
  for (const m of dropped)
    lines.push(`  dropped ${m.energySource}/${m.outputType}/${m.featureGroup}/${m.modelName}: ${m.droppedBecause}`);
  return `${lines.join("\n")}\n`;
}

export const modelsCommand: Command = {
  name: "models",
  summary:
    "List, rank, import and export the registry's models, roll a model back to its previous version (calls a running registry); back up and restore a whole model store (offline).",
  usage:
    "list|best|import <folder|zip|https://.../<pipeline>.zip|s3://bucket/prefix/<pipeline>>|export <pipeline>|rollback <pipeline>/<source>/<OutputType>/<FeatureGroup>/<model>|backup <file|s3://bucket/key>|restore <file|s3://bucket/key> [flags]",
  flags: [
    {
      name: "pipeline",
      aliases: ["name"],
      valueName: "name",
      description: "Only this pipeline (list, best); the name to import as (import; default: the folder or zip name).",
    },
    withNote(COMMON_FLAGS.energySource, "For list and best; best defaults to rapl-sysfs."),
    { name: "output-type", valueName: "type", description: "AbsPower or DynPower (list, best)." },
    withNote(COMMON_FLAGS.featureGroup, "For list and best."),
    { name: "trainer", valueName: "name", description: "Trainer name, matched exactly (list)." },
    { name: "node-type", valueName: "N", description: "Node type (list, best)." },
    { name: "filter", valueName: "expr", description: "Metadata filter, e.g. mae:10;features:a,b (list, best)." },
    { name: "json", boolean: true, description: "Print the rows as a JSON array (list, best)." },
    { name: "replace", boolean: true, description: "Replace an existing pipeline of that name (import)." },
    {
      name: "force",
      boolean: true,
      description: "With --replace: let an archive without servable models remove the pipeline's models (import).",
    },
    {
      name: "out",
      aliases: ["output"],
      valueName: "file.zip",
      description: "Where to write the exported zip with its README.md (default <pipeline>.zip).",
    },
    {
      name: "max-mape",
      valueName: "%",
      description: `Drop models whose MAPE exceeds this (export; default ${DEFAULT_MAX_MAPE}, the reference's).`,
    },
    {
      name: "max-mae",
      valueName: "W",
      description: `Drop models whose MAE exceeds this (export; default ${DEFAULT_MAX_MAE}, the reference's).`,
    },
    {
      name: "accept-mape",
      valueName: "%",
      description: "Keep only models with MAPE within this or MAE within --accept-mae (export; the reference's 20).",
    },
    {
      name: "accept-mae",
      valueName: "W",
      description: "Keep only models with MAE within this or MAPE within --accept-mape (export; the reference's 10).",
    },
    { name: "publisher", valueName: "name", description: "Publisher recorded in metadata.json and README.md (export)." },
    {
      name: "collect-date",
      valueName: "date",
      description: "When the training data was collected, e.g. 2024-07-25 (export; metadata.json collect_time).",
    },
    {
      name: "registry-address",
      valueName: "host:port",
      description: `Registry to call (env KEPLER_MODEL_REGISTRY_ADDRESS, default ${peerAddressKey("registry").default}).`,
    },
    ...MODELS_BACKUP_FLAGS,
    ...CLIENT_SECURITY_FLAGS,
    ...S3_FLAGS,
  ],
  async run({ flags, positionals, stdout, stderr, env }) {
    const [action, argument] = positionals;
    if (action === "backup" || action === "restore") {
      stdout.write(await runModelsBackup(action, argument, { flags, env }));
      return 0;
    }
    if (action === undefined || !["list", "best", "import", "export", "rollback"].includes(action)) {
      throw new UsageError(`expected list, best, import, export, rollback, backup or restore, got "${action ?? ""}"`);
    }
    const filters = action === "list" || action === "best" ? readModelFilters(flags) : undefined;
    const { address } = readConfig({ address: peerAddressKey("registry") }, env, flags);
    const registry = createRegistryClient(address, commandConnection({ env, flags }));
    try {
      if (action === "list") return await listModels(registry.client, filters!, stdout);
      if (action === "best") return await listBestModels(registry.client, filters!, stdout);
      if (action === "import") stdout.write(await importPipeline(registry.client, flags, argument, env));
      else if (action === "rollback") stdout.write(await rollbackModelCommand(registry.client, argument));
      else stdout.write(await exportPipeline(registry.client, flags, argument));
      return 0;
    } catch (error) {
      // Nothing answering is the shared one line (run-command.ts); a server's refusal names the action.
      if (!(error instanceof ClientError) || error.code === Status.UNAVAILABLE) throw error;
      stderr.write(`kepler-model models ${action}: ${Status[error.code]}: ${error.details}\n`);
      return 1;
    } finally {
      registry.close();
    }
  },
};
