// `kepler-model vm-train`: VM power models for Kepler 0.10+ (docs: README "VMs under Kepler 0.10"). Reads
// the host's Kepler measurements and each guest's node exporter counters from Prometheus (or a saved
// answer), trains GuestOSOnly / GuestOSPerf models per VM size, and publishes them to a registry.
import { readFile, writeFile } from "node:fs/promises";
import { assertFeatureGroup, type FeatureGroupName } from "../../services/domain/feature-groups.js";
import { readConfig } from "../../services/kit/config/config-schema.js";
import { peerAddressKey } from "../../services/kit/config/service-addresses.js";
import { isOutputTypeName } from "../../services/models/index.js";
import { createPrometheusClient } from "../../services/prometheus/prometheus-client.js";
import { createRegistryClient } from "../../services/registry/client.js";
import { createRegistryPublisher } from "../../services/trainer/registry-publisher.js";
import { trainModels } from "../../services/trainer/domain/train-models.js";
import {
  DEFAULT_NODE_MAPPING,
  DEFAULT_VM_MAPPING,
  DEFAULT_VM_PIPELINE,
  DEFAULT_VM_TRAINERS,
  hostContextQueries,
  type PowerTarget,
  trainVmModels,
  vmQueries,
  type VmQueryResults,
  vmSpecMessage,
  ZONES,
} from "../../services/vm-power/index.js";
import { CLIENT_SECURITY_FLAGS, commandConnection } from "../client-security.js";
import { type Command, UsageError } from "../command.js";
import { stepFlag, windowFlags } from "../common-flags.js";
import { formatTextTable } from "../text-table.js";
import { choiceFlag, type Flags, integerFlag, listFlag, numberFlag, textFlag, timeFlag } from "../flag-readers.js";

/** Kepler 0.10's own sampling interval. */
const DEFAULT_STEP_SECONDS = 5;

async function queryPrometheus(flags: Flags, queries: Record<string, string>): Promise<VmQueryResults> {
  const url = textFlag(flags, "prometheus-url");
  if (url === undefined) throw new UsageError("give --prometheus-url (or --input with a saved answer)");
  const step = numberFlag(flags, "step", { positive: true }) ?? DEFAULT_STEP_SECONDS;
  const end = timeFlag(flags, "end") ?? Math.floor(Date.now() / 1000);
  const start = timeFlag(flags, "start") ?? end - (numberFlag(flags, "minutes", { positive: true }) ?? 60) * 60;
  if (start >= end) throw new UsageError(`--start (${start}) must be before --end (${end})`);
  const client = createPrometheusClient({ baseUrl: url, timeoutMs: 60_000 });
  const results: VmQueryResults = {};
  for (const [key, query] of Object.entries(queries)) results[key] = await client.queryRange(query, start, end, step);
  return results;
}

export const vmTrainCommand: Command = {
  name: "vm-train",
  summary: "Train VM power models for Kepler 0.10+ from host Kepler energy and guest OS counters; publish them.",
  usage: "--prometheus-url URL [--minutes 60 | --start S --end S] --registry-address host:port [flags]",
  flags: [
    {
      name: "prometheus-url",
      valueName: "url",
      description: "Prometheus holding the host's Kepler 0.10+ metrics and the guests' node exporter metrics.",
    },
    { name: "minutes", valueName: "N", description: "Train on the last N minutes (default 60)." },
    ...windowFlags({ start: "with --end; instead of --minutes", end: "default now" }),
    stepFlag(`${DEFAULT_STEP_SECONDS}; Kepler 0.10 samples every 5 s by default`),
    {
      name: "input",
      valueName: "file.json",
      description: "Train from a saved answer (written by --save) instead of querying Prometheus.",
    },
    { name: "save", valueName: "file.json", description: "Also write the Prometheus answers to this file." },
    {
      name: "target",
      valueName: "vm|node",
      description:
        "vm (default): each VM's power from kepler_vm_cpu_joules_total; node: each node's from kepler_node_cpu_joules_total (bare-metal nodes whose own node exporter is the guest side).",
    },
    {
      name: "host-label",
      valueName: "label",
      description: "Label of the host's power series naming the VM (default vm_name; node_name with --target node).",
    },
    {
      name: "guest-label",
      valueName: "label",
      description:
        "Label of the guest's node exporter series naming the same machine, a :port suffix ignored (default instance).",
    },
    {
      name: "feature-groups",
      valueName: "g1,g2",
      description: "GuestOSOnly (default) and/or GuestOSPerf (needs the guests' perf counters).",
    },
    {
      name: "trainers",
      valueName: "t1,t2",
      description: `Trainers (default ${DEFAULT_VM_TRAINERS.join(",")}: they extrapolate to unseen workloads).`,
    },
    {
      name: "output-types",
      valueName: "t1,t2",
      description:
        "AbsPower (default) and/or DynPower (each VM's power minus its share at rest: the least it drew per zone in the window, kept in profile/vm_idle.json).",
    },
    { name: "pipeline", valueName: "name", description: `Pipeline to publish into (default ${DEFAULT_VM_PIPELINE}).` },
    { name: "seed", valueName: "N", description: "Seed of the train/test split (default 0)." },
    {
      name: "lagged-features",
      boolean: true,
      description:
        "On by default (--no-lagged-features: off): also train each trainer with every guest feature's previous step (<feature>_lag1) and publish whichever has the lower MAE on the trainer's test split.",
    },
    {
      name: "host-context-cpus",
      valueName: "N",
      description:
        "Train with host context (guest_host_<zone>_watts from each VM's host Kepler: kepler_node_cpu_usage_ratio, kepler_node_cpu_active_watts by node_name); the hosts have N logical CPUs.",
    },
    {
      name: "registry-address",
      valueName: "host:port",
      description: `Registry that indexes the VM sizes and stores the models (env KEPLER_MODEL_REGISTRY_ADDRESS, default ${peerAddressKey("registry").default}).`,
    },
    ...CLIENT_SECURITY_FLAGS,
  ],
  async run({ flags, stdout, env }) {
    const target: PowerTarget = choiceFlag(flags, "target", ["vm", "node"], "vm");
    const defaults = target === "vm" ? DEFAULT_VM_MAPPING : DEFAULT_NODE_MAPPING;
    const mapping = {
      hostLabel: textFlag(flags, "host-label") ?? defaults.hostLabel,
      guestLabel: textFlag(flags, "guest-label") ?? defaults.guestLabel,
    };
    const groupNames = listFlag(flags, "feature-groups");
    const featureGroups = (groupNames.length === 0 ? ["GuestOSOnly"] : groupNames).map((g, i) =>
      assertFeatureGroup(g, `--feature-groups[${i}]`),
    ) as FeatureGroupName[];
    const trainers = listFlag(flags, "trainers");
    const trainerNames = trainers.length === 0 ? [...DEFAULT_VM_TRAINERS] : trainers;
    const types = listFlag(flags, "output-types");
    const outputTypes = (types.length === 0 ? ["AbsPower"] : types).map((type, i) => {
      if (!isOutputTypeName(type)) throw new UsageError(`--output-types[${i}] must be AbsPower or DynPower, got "${type}"`);
      return type;
    });
    const pipelineName = textFlag(flags, "pipeline") ?? DEFAULT_VM_PIPELINE;
    const seed = integerFlag(flags, "seed", { min: 0 }) ?? 0;
    const input = textFlag(flags, "input");
    const hostCpus = integerFlag(flags, "host-context-cpus", { min: 1 });
    const queries = { ...vmQueries(target, mapping), ...(hostCpus === undefined ? {} : hostContextQueries(mapping)) };
    const results: VmQueryResults =
      input === undefined ? await queryPrometheus(flags, queries) : JSON.parse(await readFile(input, "utf8"));
    const save = textFlag(flags, "save");
    if (save !== undefined) await writeFile(save, JSON.stringify(results));

    const { address } = readConfig({ address: peerAddressKey("registry") }, env, flags);
    const registry = createRegistryClient(address, commandConnection({ env, flags }));
    try {
      const trained = await trainVmModels(
        {
          results,
          mapping,
          featureGroups,
          outputTypes,
          trainerNames,
          pipelineName,
          seed,
          // On unless --no-lagged-features: Kepler samples on its own clock, so the host's energy of a step
          // mixes the guest's current and previous step (README "VMs under Kepler 0.10", accuracy).
          laggedFeatures: flags["lagged-features"] !== false,
          ...(hostCpus === undefined ? {} : { hostContext: { hostCpus } }),
        },
        {
          async nodeTypeOf(machine, spec) {
            const response = await registry.client.indexMachine({
              pipelineName,
              machineId: machine,
              spec: vmSpecMessage(spec),
            });
            return response.nodeType;
          },
          publishModel: createRegistryPublisher(registry),
          trainModels,
        },
      );
      const rows: string[][] = [];
      for (const [group, table] of trained.tables) {
        for (const nodeType of table.nodeTypes) {
          for (const result of trained.results.filter((r) => r.featureGroup === group && r.nodeType === nodeType.nodeType)) {
            rows.push([
              group,
              result.outputType,
              `${nodeType.nodeType} (${nodeType.spec.cores} vCPU, ${nodeType.spec.memory} GiB: ${nodeType.vms.map((v) => v.name).join(" ")})`,
              result.lagged ? `${result.trainerName} (+lag1)` : result.trainerName,
              result.outcome === "succeeded"
                ? result.components.map((c) => `${c.component} ${c.maeWatts.toFixed(2)}`).join(", ")
                : `failed: ${result.failureReason ?? ""}`,
            ]);
          }
        }
        for (const skipped of table.skipped) stdout.write(`${group}: left out ${skipped.machine}: ${skipped.reason}\n`);
      }
      stdout.write(formatTextTable(["group", "output", "node type", "trainer", "test MAE (W)"], rows));
      // The pipeline's metadata.json (what was trained, from what) and the VMs' idle power of DynPower.
      await registry.client.putPipelineMetadata({
        pipelineName,
        metadataJson: JSON.stringify({
          name: pipelineName,
          kepler_version: "0.10+",
          target,
          host_label: mapping.hostLabel,
          guest_label: mapping.guestLabel,
          feature_groups: featureGroups,
          abs_trainers: outputTypes.includes("AbsPower") ? trainerNames : [],
          dyn_trainers: outputTypes.includes("DynPower") ? trainerNames : [],
          isolator: outputTypes.includes("DynPower") ? "vm-min" : "",
          vms: [...trained.tables.values()]
            .flatMap((t) => t.nodeTypes.flatMap((n) => n.vms.map((vm) => vm.name)))
            .filter((v, i, all) => all.indexOf(v) === i),
        }),
        files:
          trained.idle.size === 0
            ? []
            : [
                {
                  path: "profile/vm_idle.json",
                  data: Buffer.from(
                    JSON.stringify(
                      Object.fromEntries(
                        [...trained.idle].map(([vm, watts]) => [vm, Object.fromEntries(ZONES.map((z, i) => [z, watts[i]]))]),
                      ),
                    ),
                  ),
                },
              ],
      });
      const ok = trained.results.filter((r) => r.outcome === "succeeded").length;
      stdout.write(`\n${ok} of ${trained.results.length} models published to pipeline ${pipelineName} at ${address}\n`);
      return ok > 0 ? 0 : 1;
    } finally {
      registry.close();
    }
  },
};
