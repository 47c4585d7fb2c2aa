// The VM power room: models of a VM's CPU power from its own OS counters for Kepler 0.10+.
// - guest/: the guest's counters (/proc or a node exporter) and the GuestOSOnly / GuestOSPerf features
// - training/: the training table (host Kepler power + guest counters), per-size model training, opt-in
//   host-context and lagged columns
// - host/: host context (the host's usage ratio and active watts) as features
// - exporter/: the in-VM exporter's tick (features -> model -> watts), its model sources and /metrics
// - tree/: the modelled powercap / hwmon sysfs tree an unchanged Kepler reads (counters, atomic writes)
// - daemon/: the exporter daemon (timers, /metrics server, tree writer), started by `kepler-model exporter`
export { type GuestCounterName, type GuestCounterSeries, GUEST_COUNTER_NAMES } from "./guest/guest-counters.js";
export type { GuestSnapshot } from "./guest/guest-snapshot.js";
export { guestFeatureColumns, hasPerfCounters } from "./guest/guest-features.js";
export { readProcCounters } from "./guest/proc-counters.js";
export { parseNodeExporterText, scrapeNodeExporter } from "./guest/node-exporter-counters.js";
export {
  DEFAULT_NODE_MAPPING,
  DEFAULT_VM_MAPPING,
  type PowerTarget,
  vmQueries,
  type VmQueryResults,
} from "./training/vm-training-table.js";
export { VM_FREQUENCY_MHZ, vmSpec, vmSpecMessage } from "./guest/vm-spec.js";
export {
  DEFAULT_VM_PIPELINE,
  DEFAULT_VM_TRAINERS,
  isLagWorthKeeping,
  LAG_MIN_MAE_GAIN,
  trainVmModels,
  type VmTrainCall,
} from "./training/train-vm-models.js";
export {
  type CreatePredictor,
  type ExporterModel,
  fileModelProvider,
  type ModelProvider,
  registryModelProvider,
} from "./exporter/exporter-model.js";
export {
  type PowerSourceName,
  type RemoteEstimate,
  type TickOutcome,
  VmExporter,
  type VmExporterStatus,
  ZONES,
} from "./exporter/vm-exporter.js";
export {
  guestBusyVcpus,
  HOST_CONTEXT_FEATURES,
  type HostContextReading,
  type HostContextSeries,
  hostContextRow,
} from "./host/host-context.js";
export { prometheusHostContext } from "./host/host-context-source.js";
export { type HostPower, type HostPowerSource, prometheusHostPower } from "./host/host-power-source.js";
export { hostContextOf, hostContextQueries } from "./training/host-context-series.js";
export { addHostContext, addLaggedColumns, LAG_SUFFIX, laggedFeatures } from "./training/vm-feature-transforms.js";
export { blendWatts, type SizeBlend, sizeBlend } from "./exporter/size-interpolation.js";
export { type TreeLayout, TreeWriter, type TreeWriterOptions } from "./tree/tree-writer.js";
export { powercapZoneFolders } from "./tree/powercap-tree.js";
export { HWMON_CHIP_NAME } from "./tree/hwmon-tree.js";
export {
  type ExporterDaemonConfig,
  type ExporterDaemonDeps,
  type ExporterDaemonHandle,
  startExporterDaemon,
  tickIntoTree,
  type TreeConfig,
} from "./daemon/exporter-daemon.js";
export {
  type HostSample,
  type OnlineResult,
  type OnlineTraining,
  type OnlineTrainingConfig,
  type OnlineTrainingDeps,
  OnlineTrainingRows,
  type OnlineTrainingStatus,
  startOnlineTraining,
  trainOnlineRows,
} from "./online/online-training.js";
export { selectableFeatures } from "./exporter/feature-row.js";
