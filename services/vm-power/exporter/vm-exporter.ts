// Inside a VM: every tick, read the guest's counters, turn the change since the previous tick into the
// model's features, predict watts per RAPL zone, and add watts x seconds to an energy counter that never
// falls (not at a model reload either: the model is a label of the watts gauge and of the info metric, not
// of the counter). With a host power source (../host/host-power-source.ts), a tick takes the host's own
// watts when it can and the model's when it cannot; the counter integrates whichever is live, so a switch
// either way keeps it rising, and `status.source` says which one it is. Exposed with Kepler 0.10's names by exporter-metrics.ts; the daemon also hands the
// watts to the modelled sysfs tree (../tree) an unchanged Kepler reads.
import { componentsOf } from "../../domain/energy-sources.js";
import type { DomainLogger } from "../../kit/observe/logger.js";
import { accumulateEnergy, createMatrix, matrixToWasm } from "../../../wasm-core/src/index.js";
import type { GuestCounterName, GuestCounterSeries } from "../guest/guest-counters.js";
import { guestFeatureColumns } from "../guest/guest-features.js";
import type { GuestSnapshot } from "../guest/guest-snapshot.js";
import type { ExporterModel, ModelProvider } from "./exporter-model.js";
import type { HostPowerSource } from "../host/host-power-source.js";
import { guestBusyVcpus, HOST_CONTEXT_FEATURES, type HostContextReading, hostContextRow } from "../host/host-context.js";
import { featureRow, needsHostContext } from "./feature-row.js";
import type { HostSample } from "../online/online-training.js";

export const ZONES = componentsOf("rapl-sysfs");

/** Watts per zone from an Estimate RPC (the exporter as the estimator's client). */
export interface RemoteEstimate {
  estimate(featureNames: readonly string[], values: readonly number[]): Promise<{ watts: number[]; modelName: string }>;
}

export interface VmExporterDeps {
  read(): Promise<GuestSnapshot>;
  /** The model to run here, or the estimator to ask. */
  power:
    { kind: "model"; provider: ModelProvider } | { kind: "estimator"; client: RemoteEstimate; featureNames: readonly string[] };
  nodeName: string;
  logger: DomainLogger;
  /** The host's own measurement of this VM, served instead of the model whenever it is available. */
  hostPower?: HostPowerSource;
  /** The host's usage and active watts, for models trained with host-context features. */
  hostContext?: { read(): Promise<HostContextReading> };
  /** Each tick served from the host's number, with the guest's features (online training's rows). */
  onHostSample?(sample: HostSample): void;
}

/** Where the live watts come from. */
export type PowerSourceName = "host" | "model";

/** The exporter's state as /metrics shows it. */
export interface VmExporterStatus {
  /** Watts per zone of the last successful tick (undefined before one). */
  watts: Float64Array | undefined;
  /** Energy per zone since this process started. */
  joules: Float64Array;
  modelName: string;
  pipeline: string;
  featureGroup: string;
  modelVersion: string;
  origin: "file" | "registry" | "estimator";
  /** Which source gave the last watts. */
  source: PowerSourceName;
  /** Whether a host power source is configured (then the joules are the host's and the model's, as live). */
  hasHostSource: boolean;
  ticksOk: number;
  ticksError: number;
  lastTickSeconds: number;
  modelLoads: number;
  /** Seconds the last prediction took (the model here, or the Estimate call). */
  inferenceSeconds: number;
  /** Guest counter reads that failed and features the VM could not give (EP-003's feature collection errors). */
  featureErrors: number;
}

/** What one tick did. */
export type TickOutcome = "first-reading" | "ok" | "error";

function pairSeries(previous: GuestSnapshot, current: GuestSnapshot): GuestCounterSeries {
  const counters: GuestCounterSeries["counters"] = {};
  for (const [name, value] of Object.entries(current.counters) as Array<[GuestCounterName, number]>) {
    const before = previous.counters[name];
    if (before !== undefined) counters[name] = Float64Array.of(before, value);
  }
  return {
    timestampsSeconds: Float64Array.of(previous.timestampSeconds, current.timestampSeconds),
    counters,
    memoryTotalBytes: Float64Array.of(previous.memoryTotalBytes, current.memoryTotalBytes),
    memoryAvailableBytes: Float64Array.of(previous.memoryAvailableBytes, current.memoryAvailableBytes),
    vcpus: current.vcpus,
  };
}

/** The exporter's state (see the file comment). */
export class VmExporter {
  private previous: GuestSnapshot | undefined;
  private joules: Float64Array = new Float64Array(ZONES.length);
  private watts: Float64Array | undefined;
  private model: ExporterModel | undefined;
  private remoteModelName = "";
  private readonly ticks = { ok: 0, error: 0 };
  private lastTickSeconds = 0;
  private modelLoads = 0;
  private inferenceSeconds = 0;
  private featureErrors = 0;
  private source: PowerSourceName = "model";
  /** Seconds the joules are integrated to (the last tick's reading). */
  private integratedTo: number | undefined;
  /** The last tick's guest features (the lagged features' values). */
  private lastFeatures: ReadonlyMap<string, number> | undefined;
  /** The guest features of the last tick served from the host (undefined after a tick that was not). */
  private lastHostFeatures: ReadonlyMap<string, number> | undefined;

  constructor(private readonly deps: VmExporterDeps) {}

  /** The model in use (undefined before the first load or with an estimator). */
  get currentModel(): ExporterModel | undefined {
    return this.model;
  }

  /** What /metrics shows (exporter-metrics.ts). */
  get status(): VmExporterStatus {
    return {
      watts: this.watts,
      joules: this.joules,
      modelName: this.model?.name ?? this.remoteModelName,
      pipeline: this.model?.pipeline ?? "",
      featureGroup: this.model?.featureGroup ?? "",
      modelVersion: this.model?.version ?? "",
      origin: this.deps.power.kind === "estimator" ? "estimator" : this.deps.power.provider.origin,
      source: this.source,
      hasHostSource: this.deps.hostPower !== undefined,
      ticksOk: this.ticks.ok,
      ticksError: this.ticks.error,
      lastTickSeconds: this.lastTickSeconds,
      modelLoads: this.modelLoads,
      inferenceSeconds: this.inferenceSeconds,
      featureErrors: this.featureErrors,
    };
  }

  /** Loads the model, or a newer one; keeps the current one (and logs) when loading fails. */
  async refreshModel(): Promise<boolean> {
    if (this.deps.power.kind !== "model") return false;
    try {
      const next = await this.deps.power.provider.load();
      if (this.model !== undefined && next.version === this.model.version) return false;
      this.deps.logger.info({ model: next.name, pipeline: next.pipeline, version: next.version }, "model loaded");
      this.model = next;
      this.modelLoads++;
      return true;
    } catch (error) {
      this.deps.logger.warn({ reason: (error as Error).message }, "model not (re)loaded; keeping the current one");
      return false;
    }
  }

  /** Reads the counters and, from the second reading on, predicts and integrates. */
  async tick(): Promise<TickOutcome> {
    const started = performance.now();
    try {
      const host = await this.readHostPower();
      // With the host's watts, the guest's counters are only kept current for a fall back to the model.
      const read = this.deps.read().catch((error: unknown) => {
        this.featureErrors++;
        throw error;
      });
      const current = host === undefined ? await read : await read.catch(() => undefined);
      const previous = this.previous;
      if (current !== undefined) this.previous = current;
      const now = current?.timestampSeconds ?? Date.now() / 1000;
      const integratedTo = this.integratedTo;
      this.integratedTo = now;
      if (integratedTo === undefined || !(now > integratedTo)) return "first-reading";
      this.followHostTick(host, previous, current);
      let watts = host;
      if (watts === undefined) {
        if (previous === undefined || current === undefined) return "first-reading";
        watts = await this.predict(guestFeatureColumns(pairSeries(previous, current)), current.vcpus);
      }
      this.setSource(host === undefined ? "model" : "host");
      this.watts = watts;
      this.joules = accumulateEnergy(this.joules, watts, now - integratedTo);
      this.ticks.ok++;
      return "ok";
    } catch (error) {
      this.ticks.error++;
      this.deps.logger.warn({ reason: (error as Error).message }, "tick failed");
      return "error";
    } finally {
      this.lastTickSeconds = (performance.now() - started) / 1000;
    }
  }

  // The host's watts, or undefined (no source, or it is unavailable now: the model takes over).
  private async readHostPower(): Promise<Float64Array | undefined> {
    if (this.deps.hostPower === undefined) return undefined;
    try {
      return (await this.deps.hostPower.read()).watts;
    } catch (error) {
      if (this.source === "host")
        this.deps.logger.warn({ reason: (error as Error).message }, "host power unavailable; serving the model");
      return undefined;
    }
  }

  // On a tick served from the host: this tick's guest features become the previous tick's for a lagged
  // model taking over at the next tick, and, with online training, a row with the host's watts (the
  // previous tick's features too, for the lag columns, only when that tick was the host's as well).
  private followHostTick(
    host: Float64Array | undefined,
    previous: GuestSnapshot | undefined,
    current: GuestSnapshot | undefined,
  ): void {
    if (host === undefined || previous === undefined || current === undefined) {
      this.lastHostFeatures = undefined;
      if (host !== undefined) this.lastFeatures = undefined;
      return;
    }
    const columns = guestFeatureColumns(pairSeries(previous, current));
    const features = new Map([...columns].map(([name, values]) => [name, values[1]!] as const));
    this.lastFeatures = features;
    const previousFeatures = this.lastHostFeatures;
    this.lastHostFeatures = features;
    this.deps.onHostSample?.({ timestampSeconds: current.timestampSeconds, features, previousFeatures, watts: host });
  }

  private setSource(source: PowerSourceName): void {
    if (source !== this.source && source === "host")
      this.deps.logger.info({ from: this.deps.hostPower?.description }, "serving the host's own power");
    this.source = source;
  }

  private async predict(columns: Map<string, Float64Array>, vcpus: number): Promise<Float64Array> {
    const power = this.deps.power;
    if (power.kind === "estimator") {
      const values = power.featureNames.map((name) => columns.get(name)?.[1] ?? Number.NaN);
      const started = performance.now();
      const answer = await power.client.estimate(power.featureNames, values);
      this.inferenceSeconds = (performance.now() - started) / 1000;
      this.remoteModelName = answer.modelName;
      return Float64Array.from(ZONES, (_, i) => answer.watts[i] ?? 0);
    }
    const model = this.model;
    if (model === undefined) throw new Error("no model loaded yet");
    const names = model.predictor.inputFeatures(model.features);
    const current = new Map([...columns].map(([name, values]) => [name, values[1]!] as const));
    const previous = this.lastFeatures;
    this.lastFeatures = current;
    const hostContext = this.deps.hostContext;
    const host =
      hostContext !== undefined && needsHostContext(names, HOST_CONTEXT_FEATURES)
        ? hostContextRow(guestBusyVcpus(columns, vcpus)[1]!, await hostContext.read())
        : undefined;
    let row: Float64Array;
    try {
      row = featureRow(names, current, previous, host);
    } catch (error) {
      this.featureErrors++;
      throw error;
    }
    const x = matrixToWasm(createMatrix(1, names.length, row));
    const started = performance.now();
    try {
      const powers = model.predictor.predict(x, names, new Map());
      this.inferenceSeconds = (performance.now() - started) / 1000;
      return Float64Array.from(ZONES, (zone) => powers.get(zone)?.[0] ?? 0);
    } finally {
      x.buffer.free();
    }
  }
}
