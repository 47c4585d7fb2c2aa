// The flags of `kepler-model exporter` (exporter.ts reads them).
import type { FlagSpec } from "../command.js";
import { metricsTokensFileKey } from "../../services/kit/observe/metrics-auth.js";
import { DEFAULT_VM_PIPELINE } from "../../services/vm-power/index.js";

export const EXPORTER_FLAGS: FlagSpec[] = [
  {
    name: "model-file",
    valueName: "zip",
    description: "Run this model archive (air-gapped VMs); re-read when the file changes.",
  },
  {
    name: "registry-address",
    valueName: "host:port",
    description:
      "Ask this registry for the best model for this VM (its vCPUs and memory as the machine spec) and re-ask every --model-refresh-seconds.",
  },
  {
    name: "model-public-keys-file",
    valueName: "file",
    description:
      "PEM file of ed25519 public keys (env KEPLER_MODEL_PUBLIC_KEYS_FILE): a model archive (--model-file, --registry-address) must be signed by one of them and is refused before use otherwise.",
  },
  {
    name: "estimator-address",
    valueName: "host:port",
    description: "Send each tick's features to this estimator's Estimate RPC instead of running a model here.",
  },
  {
    name: "pipeline",
    valueName: "name",
    description: `Pipeline to select from (registry, estimator; default ${DEFAULT_VM_PIPELINE}).`,
  },
  { name: "feature-group", valueName: "group", description: "GuestOSOnly (default) or GuestOSPerf (registry, estimator)." },
  {
    name: "node-exporter-url",
    valueName: "url",
    description: "Read the counters from this node exporter's /metrics instead of /proc.",
  },
  {
    name: "proc-root",
    valueName: "dir",
    description: "Root of the file system whose /proc and /sys are read (default /; e.g. /host in a container).",
  },
  {
    name: "interval-seconds",
    valueName: "s",
    description: "Seconds between ticks: counters read, model run (default 5, Kepler 0.10's interval).",
  },
  { name: "model-refresh-seconds", valueName: "s", description: "Seconds between model reloads (default 60)." },
  { name: "node-name", valueName: "name", description: "node_name label (default env NODE_NAME, else this host's name)." },
  {
    name: "host",
    valueName: "address",
    description: "Address /metrics listens on (default 127.0.0.1; 0.0.0.0 for a Prometheus outside the VM).",
  },
  {
    name: "port",
    valueName: "port",
    description: "Port of /metrics (default 28283, next to Kepler 0.10's 28282; 0 picks a free one).",
  },
  {
    name: metricsTokensFileKey.flag,
    valueName: "file",
    description: `${metricsTokensFileKey.description} Env ${metricsTokensFileKey.env}.`,
  },
  {
    name: "tree-root",
    valueName: "dir",
    description:
      "Keep a modelled sysfs tree here (class/powercap/intel-rapl:*, class/hwmon/hwmon0) for Kepler 0.10+ to read: point Kepler's host.sysfs at it. Off by default.",
  },
  {
    name: "tree-layout",
    valueName: "list",
    description: "powercap (default; Kepler's RAPL meter), hwmon (its experimental hwmon meter), or both.",
  },
  {
    name: "tree-update-ms",
    valueName: "ms",
    description:
      "Milliseconds between rewrites of the tree at the latest modelled watts (default 10; one read's error is at most this / Kepler's interval).",
  },
  {
    name: "tree-persist-ms",
    valueName: "ms",
    description: "Milliseconds between saves of the counters for a restart (default 1000).",
  },
  {
    name: "tree-state-file",
    valueName: "file",
    description: "Where the counters are saved (default <tree-root>/.kepler-model-exporter-state.json).",
  },
  {
    name: "max-energy-range-uj",
    valueName: "uj",
    description:
      "max_energy_range_uj of every zone: the counters wrap there (default 262143328850, Linux's on common Intel parts).",
  },
  {
    name: "max-downtime-seconds",
    valueName: "s",
    description: "The longest downtime a restart adds back at the last modelled watts, within the same boot (default 600).",
  },
  {
    name: "host-prometheus-url",
    valueName: "url",
    description:
      "Serve the host Kepler's own measurement of this VM (kepler_vm_cpu_joules_total from this Prometheus) when available, the model otherwise (with --host-vm-selector).",
  },
  {
    name: "host-vm-selector",
    valueName: "matchers",
    description: 'PromQL label matchers naming this VM in the host\'s Kepler series, e.g. vm_id="instance-0000002a".',
  },
  {
    name: "host-window-seconds",
    valueName: "s",
    description: "Seconds of host samples asked for (default 60; at least two of the host's scrapes).",
  },
  {
    name: "host-context-selector",
    valueName: "matchers",
    description:
      'For models trained with host context: PromQL label matchers naming this VM\'s host in its Kepler series (kepler_node_cpu_usage_ratio, kepler_node_cpu_active_watts), e.g. node_name="host-1"; with --host-prometheus-url and --host-cpus.',
  },
  { name: "host-cpus", valueName: "N", description: "Logical CPUs of this VM's host (host context)." },
  {
    name: "online-training-seconds",
    valueName: "s",
    description:
      "Train online (off by default): while the host's number is served, keep each tick's guest features and the host's watts, and every s seconds train them and publish a new version of this VM size's model to --registry-address (its lifecycle: kept versions, gate, signature); needs --host-prometheus-url and --host-vm-selector.",
  },
  {
    name: "online-training-min-rows",
    valueName: "N",
    description: "Rows (ticks served from the host) needed before online training publishes (default 120).",
  },
  {
    name: "online-training-max-rows",
    valueName: "N",
    description: "Newest rows kept for online training (default 17280: a day of 5 s ticks).",
  },
  {
    name: "online-training-trainers",
    valueName: "t1,t2",
    description: "Trainers of online training (default LinearRegressionTrainer,SGDRegressorTrainer, as vm-train).",
  },
];
