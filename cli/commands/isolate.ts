// `kepler-model isolate`: a container-level table (the extractor's container CSV, or a saved Prometheus
// response extracted at container level) -> the DynPower table CSV (reference CLI `isolate` /
// `isolate_from_data`, §9.4), computed in-process with the isolator's domain code. The trainer isolator
// reads the AbsPower models of a pipeline from a running registry.
import { readFile, writeFile } from "node:fs/promises";
import { gunzipSync } from "node:zlib";
import type { DataTable } from "../../services/domain/data-table.js";
import { assertEnergySource, type EnergySource } from "../../services/domain/energy-sources.js";
import { assertFeatureGroup } from "../../services/domain/feature-groups.js";
import { parsePrometheusResponse } from "../../services/domain/prometheus-response.js";
import { extract } from "../../services/extractor/domain/extract.js";
import { summarizeResponse } from "../../services/extractor/domain/summarize-response.js";
import { formatPythonFloat, tableToCsv } from "../../services/domain/table-csv.js";
import { idleContainerNames } from "../../services/isolator/domain/idle-containers.js";
import { buildIdleProfiles, type IdleProfile } from "../../services/isolator/domain/idle-profile.js";
import { ISOLATOR_NAMES, type IsolatorName, isolate } from "../../services/isolator/domain/isolate.js";
import { createRegistryModelSource } from "../../services/isolator/registry-model-source.js";
import { readConfig } from "../../services/kit/config/config-schema.js";
import { peerAddressKey } from "../../services/kit/config/service-addresses.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { readTableCsv } from "../../services/trainer/domain/read-table-csv.js";
import { type Command, UsageError } from "../command.js";
import { CLIENT_SECURITY_FLAGS, commandConnection } from "../client-security.js";

type Flags = Readonly<Record<string, string | boolean | undefined>>;

function required(flags: Flags, name: string): string {
  const value = flags[name];
  if (typeof value !== "string" || value === "") throw new UsageError(`--${name} is required`);
  return value;
}

const list = (flags: Flags, name: string): string[] =>
  typeof flags[name] === "string"
    ? (flags[name] as string)
        .split(",")
        .map((item) => item.trim())
        .filter((item) => item !== "")
    : [];

const isResponse = (path: string) => /\.json(\.gz)?$/.test(path);

async function readResponseText(path: string): Promise<string> {
  const bytes = await readFile(path);
  return (path.endsWith(".gz") ? gunzipSync(bytes) : bytes).toString("utf8");
}

/** The container-level table: a CSV as is, or a saved response extracted at container level. */
async function readContainerTable(path: string, energySource: EnergySource, flags: Flags): Promise<DataTable> {
  if (!isResponse(path)) return readTableCsv(await readFile(path, "utf8"), path);
  const featureGroup = assertFeatureGroup(required(flags, "feature-group"), "--feature-group");
  const response = parsePrometheusResponse(await readResponseText(path), path);
  return extract(response, { energySource, featureGroup, level: "container", extractor: "default" }).table;
}

/** Idle profiles and background containers of an idle response (as BuildIdleProfile, in-process). */
async function readIdleProfiles(
  path: string,
  energySource: EnergySource,
  nodeType: number,
): Promise<{ profiles: IdleProfile[]; backgroundContainerNames: readonly string[] }> {
  const idle = parsePrometheusResponse(await readResponseText(path), path);
  const featureGroup = summarizeResponse(idle).validFeatureGroups.reference[0];
  if (featureGroup === undefined) throw new UsageError(`--idle ${path}: the idle data supports no feature group`);
  const table = extract(idle, { energySource, featureGroup, level: "node", extractor: "default", nodeType }).table;
  return { profiles: buildIdleProfiles([{ energySource, table }]), backgroundContainerNames: idleContainerNames(idle).names };
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
    { name: "source", valueName: "src", description: "Energy source, e.g. rapl-sysfs or acpi." },
    { name: "feature-group", valueName: "fg", description: "Feature group to extract when --input is a Prometheus response." },
    { name: "isolator", valueName: "name", description: `Isolator: ${ISOLATOR_NAMES.join(", ")} (default min).` },
    { name: "out", valueName: "file", description: "Where to write the isolated table CSV (timestamp first)." },
    {
      name: "idle",
      valueName: "idle.json",
      description: "profile: saved Prometheus response of the idle node (its profile, and its containers as background).",
    },
    { name: "node-type", valueName: "N", description: "Node type for every row (default: keep the table's)." },
    { name: "target-hints", valueName: "a,b", description: "trainer: container-name hints of the target workload." },
    { name: "bg-hints", valueName: "a,b", description: "trainer: container-name hints of background containers." },
    {
      name: "abs-pipeline-name",
      valueName: "name",
      description: "trainer: the pipeline whose AbsPower models predict background.",
    },
    {
      name: "registry-address",
      valueName: "host:port",
      description: `trainer: the registry (default ${peerAddressKey("registry").default}).`,
    },
    ...CLIENT_SECURITY_FLAGS,
  ],
  async run({ flags, stdout, env }) {
    const input = required(flags, "input");
    const out = required(flags, "out");
    const energySource = assertEnergySource(required(flags, "source"), "--source");
    const isolator = (typeof flags.isolator === "string" ? flags.isolator : "min") as IsolatorName;
    if (!ISOLATOR_NAMES.includes(isolator))
      throw new UsageError(`--isolator must be one of ${ISOLATOR_NAMES.join(", ")}, got "${String(flags.isolator)}"`);
    const nodeType = flags["node-type"] === undefined ? undefined : Number(flags["node-type"]);
    if (nodeType !== undefined && !Number.isInteger(nodeType))
      throw new UsageError(`--node-type must be an integer, got "${String(flags["node-type"])}"`);
    if (isolator === "profile" && typeof flags.idle !== "string")
      throw new UsageError("--isolator profile needs --idle <idle response.json>");

    const table = await readContainerTable(input, energySource, flags);
    const idle = isolator === "profile" ? await readIdleProfiles(flags.idle as string, energySource, nodeType ?? 0) : undefined;
    const registry =
      isolator === "trainer"
        ? createRegistryClient(
            readConfig({ address: peerAddressKey("registry") }, env, flags).address,
            commandConnection({ env, flags }),
          )
        : undefined;
    try {
      const result = await isolate(
        table,
        {
          isolator,
          energySource,
          nodeType,
          idleProfiles: idle?.profiles,
          backgroundContainerNames: idle?.backgroundContainerNames,
          fallBackToMin: true,
          targetHints: list(flags, "target-hints"),
          backgroundHints: list(flags, "bg-hints"),
          absPipelineName: typeof flags["abs-pipeline-name"] === "string" ? flags["abs-pipeline-name"] : "",
        },
        { backgroundModels: registry === undefined ? undefined : createRegistryModelSource(registry) },
      );
      await writeFile(out, tableToCsv(result.table));
      const { summary } = result;
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
    } finally {
      registry?.close();
    }
  },
};
