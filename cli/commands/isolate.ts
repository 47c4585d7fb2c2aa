// `kepler-model isolate`: a container-level table (the extractor's container CSV, or a saved Prometheus
// response extracted at container level) -> the DynPower table CSV (reference CLI `isolate` /
// `isolate_from_data`, §9.4), computed in-process with the isolator's domain code. The trainer isolator
// reads the AbsPower models of a pipeline from a running registry.
import { readFile } from "node:fs/promises";
import type { DataTable } from "../../services/domain/data-table.js";
import type { EnergySource } from "../../services/domain/energy-sources.js";
import type { FeatureGroupName } from "../../services/domain/feature-groups.js";
import { readPrometheusResponseFile } from "../../services/domain/prometheus-response.js";
import { extract } from "../../services/extractor/domain/extract.js";
import { summarizeResponse } from "../../services/extractor/domain/summarize-response.js";
import { formatPythonFloat, tableCsvChunks } from "../../services/domain/table-csv.js";
import { idleContainerNames } from "../../services/isolator/domain/idle-containers.js";
import { buildIdleProfiles, type IdleProfile } from "../../services/isolator/domain/idle-profile.js";
import { ISOLATOR_NAMES, type IsolatorName, isolate } from "../../services/isolator/domain/isolate.js";
import { createRegistryModelSource } from "../../services/isolator/registry-model-source.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { readTableCsv } from "../../services/trainer/domain/read-table-csv.js";
import { type Command, UsageError } from "../command.js";
import { CLIENT_SECURITY_FLAGS, commandConnection } from "../client-security.js";
import { COMMON_FLAGS, TRAINER_ISOLATOR_FLAGS, trainerIsolatorHints, type TrainerIsolatorHints } from "../common-flags.js";
import { OutputType } from "../../services/generated/kepler/model/v1/types.js";
import {
  assertInputFile,
  assertOutputFolder,
  booleanFlag,
  choiceFlag,
  energySourceFlag,
  featureGroupFlag,
  type Flags,
  inputFileFlag,
  integerFlag,
  requiredFlag,
  textFlag,
} from "../flag-readers.js";
import { assertServerAnswers, serverAddressFlag } from "../server-address.js";
import { writeJson, writeTextFile } from "../write-text-file.js";

const isResponse = (path: string) => /\.json(\.gz)?$/.test(path);

/** The container-level table: a CSV as is, or a saved response extracted at container level. */
async function readContainerTable(
  path: string,
  energySource: EnergySource,
  featureGroup: FeatureGroupName | undefined,
): Promise<DataTable> {
  if (featureGroup === undefined) return readTableCsv(await readFile(path, "utf8"), path);
  const response = await readPrometheusResponseFile(path, path);
  return extract(response, { energySource, featureGroup, level: "container", extractor: "default" }).table;
}

/** Idle profiles and background containers of an idle response (as BuildIdleProfile, in-process). */
async function readIdleProfiles(
  path: string,
  energySource: EnergySource,
  nodeType: number,
): Promise<{ profiles: IdleProfile[]; backgroundContainerNames: readonly string[] }> {
  const idle = await readPrometheusResponseFile(path, path);
  const featureGroup = summarizeResponse(idle).validFeatureGroups.reference[0];
  if (featureGroup === undefined) throw new UsageError(`--idle ${path}: the idle data supports no feature group`);
  const table = extract(idle, { energySource, featureGroup, level: "node", extractor: "default", nodeType }).table;
  return { profiles: buildIdleProfiles([{ energySource, table }]), backgroundContainerNames: idleContainerNames(idle).names };
}

type Registry = ReturnType<typeof createRegistryClient>;

/** A missing background pipeline is the user's mistake: say so before extracting anything. */
async function assertPipelineHasModels(registry: Registry["client"], pipelineName: string, energySource: EnergySource) {
  const { models } = await registry.listModels({
    pipelineName,
    energySource,
    outputType: OutputType.OUTPUT_TYPE_ABS_POWER,
    pageSize: 1,
  });
  if (models.length === 0)
    throw new Error(
      `--abs-pipeline-name ${pipelineName}: the registry holds no AbsPower model of that pipeline for ${energySource}`,
    );
}

interface IsolateArguments {
  readonly input: string;
  readonly out: string;
  readonly energySource: EnergySource;
  readonly featureGroup: FeatureGroupName | undefined;
  readonly isolator: IsolatorName;
  readonly nodeType: number | undefined;
  readonly idlePath: string | undefined;
  readonly hints: TrainerIsolatorHints;
}

async function isolateToFile(
  args: IsolateArguments,
  registry: Registry | undefined,
  flags: Flags,
  stdout: NodeJS.WritableStream,
): Promise<number> {
  const { out, energySource, isolator, nodeType } = args;
  const table = await readContainerTable(args.input, energySource, args.featureGroup);
  const idle = isolator === "profile" ? await readIdleProfiles(args.idlePath!, energySource, nodeType ?? 0) : undefined;
  const result = await isolate(
    table,
    {
      isolator,
      energySource,
      nodeType,
      idleProfiles: idle?.profiles,
      backgroundContainerNames: idle?.backgroundContainerNames,
      fallBackToMin: true,
      ...args.hints,
    },
    { backgroundModels: registry === undefined ? undefined : createRegistryModelSource(registry) },
  );
  await writeTextFile(out, tableCsvChunks(result.table));
  const { summary } = result;
  if (booleanFlag(flags, "json")) {
    writeJson(stdout, { out, ...summary });
    return 0;
  }
  const lines = [
    `wrote ${out}: ${summary.rowCount} rows from ${summary.targetContainerCount} target containers (isolator ${summary.isolator})`,
    ...summary.backgrounds.map(
      ({ labelColumn, watts }) => `  ${labelColumn.padEnd(16)} background ${formatPythonFloat(watts)} W`,
    ),
    ...(summary.absModel === undefined
      ? []
      : [
          `background predicted by ${summary.absModel.featureGroup}/${summary.absModel.modelName} (MAE ${summary.absModel.maeWatts} W, max correlation ${formatPythonFloat(summary.absModel.maxCorrelation)})`,
        ]),
    ...(summary.backgroundContainerNames.length > 0
      ? [`background containers: ${summary.backgroundContainerNames.join(", ")}`]
      : []),
    ...summary.notices.map((notice) => `note: ${notice}`),
    "",
  ];
  stdout.write(lines.join("\n"));
  return 0;
}

export const isolateCommand: Command = {
  name: "isolate",
  summary: "Turn a container-level table into the DynPower training table CSV (none, min, profile or trainer isolator).",
  usage:
    "--input <container-table.csv|response.json[.gz]> --source <src> --isolator none|min|profile|trainer --out <table.csv> [flags]",
  flags: [
    {
      name: "input",
      valueName: "file",
      description: "Container-level table CSV (`kepler-model extract --level container`) or a saved Prometheus response.",
    },
    COMMON_FLAGS.energySource,
    { name: "feature-group", valueName: "fg", description: "Feature group to extract when --input is a Prometheus response." },
    { name: "isolator", valueName: "name", description: `Isolator: ${ISOLATOR_NAMES.join(", ")} (default min).` },
    { name: "out", valueName: "file", description: "Where to write the isolated table CSV (timestamp first)." },
    {
      name: "idle",
      valueName: "idle.json",
      description: "profile: saved Prometheus response of the idle node (its profile, and its containers as background).",
    },
    COMMON_FLAGS.nodeType,
    ...TRAINER_ISOLATOR_FLAGS,
    serverAddressFlag("registry", "trainer: "),
    { name: "json", boolean: true, description: "Print the summary (rows, backgrounds, notices) as JSON." },
    ...CLIENT_SECURITY_FLAGS,
  ],
  async run({ flags, stdout, env }) {
    const energySource = energySourceFlag(flags, "source", true);
    const isolator = choiceFlag(flags, "isolator", ISOLATOR_NAMES, "min");
    const nodeType = integerFlag(flags, "node-type");
    const out = await assertOutputFolder(requiredFlag(flags, "out"), "out");
    const input = await inputFileFlag(flags, "input");
    const featureGroup = isResponse(input) ? featureGroupFlag(flags, "feature-group", true) : undefined;
    const idlePath = textFlag(flags, "idle");
    if (isolator === "profile" && idlePath === undefined)
      throw new UsageError("--isolator profile needs --idle <idle response.json>");
    if (idlePath !== undefined) await assertInputFile(idlePath, "idle");
    const registryAddress = isolator === "trainer" ? await assertServerAnswers("registry", { env, flags }) : undefined;

    const registry =
      registryAddress === undefined ? undefined : createRegistryClient(registryAddress, commandConnection({ env, flags }));
    try {
      const hints = trainerIsolatorHints(flags);
      if (registry !== undefined && hints.absPipelineName !== "")
        await assertPipelineHasModels(registry.client, hints.absPipelineName, energySource);
      return await isolateToFile(
        { input, out, energySource, featureGroup, isolator, nodeType, idlePath, hints },
        registry,
        flags,
        stdout,
      );
    } finally {
      registry?.close();
    }
  },
};
