// A VM for the Kepler reader tests: its guest counters are made up on the test's clock (the CPU user
// fraction of each tick is the test's choice), its model is a real archive (linear: watts per zone =
// intercept + coefficient x guest_cpu_user_ratio) run by the estimator's predictor, so the watts the
// exporter should model are known to the test without asking the exporter.
import { writeFileSync } from "node:fs";
import { componentsOf } from "../../../services/domain/energy-sources.js";
import { GUEST_OS_FEATURES } from "../../../services/domain/feature-groups.js";
import type { GuestSnapshot } from "../../../services/vm-power/index.js";
import { buildTestArchive, type LinearComponent } from "../../support/model-archives.js";

export const VM_ZONES = componentsOf("rapl-sysfs");
const FEATURES = [...GUEST_OS_FEATURES].sort();
const VCPUS = 4;

/** A linear model of the zones: watts = intercept + perUserRatio x guest_cpu_user_ratio. */
export interface LinearVmModel {
  intercept: number[];
  perUserRatio: number[];
}

/** Writes the model's archive to `path` (a newer file is a model reload for the exporter). */
export function writeVmModel(path: string, model: LinearVmModel): void {
  writeLinearVmArchive(
    path,
    FEATURES,
    VM_ZONES.map((_, i) => ({
      intercept: model.intercept[i]!,
      coefficients: FEATURES.map((f) => (f === "guest_cpu_user_ratio" ? model.perUserRatio[i]! : 0)),
    })),
  );
}

/**
 * Writes a LinearRegressionTrainer archive of pipeline vm-kepler-0.10 (rapl-sysfs, GuestOSOnly) over
 * `features`, unscaled, one component per zone in VM_ZONES order.
 */
export function writeLinearVmArchive(path: string, features: readonly string[], components: LinearComponent[]): void {
  const archive = buildTestArchive({
    pipelineName: "vm-kepler-0.10",
    energySource: "rapl-sysfs",
    featureGroup: "GuestOSOnly",
    trainerName: "LinearRegressionTrainer",
    nodeType: 0,
    features: [...features],
    scale: features.map(() => 1),
    maeWatts: 1,
    model: { kind: "linear", components },
  });
  writeFileSync(path, archive.zip);
}

/** The watts the model gives at a CPU user fraction, per zone. */
export function modelWatts(model: LinearVmModel, userRatio: number): number[] {
  return VM_ZONES.map((_, i) => model.intercept[i]! + model.perUserRatio[i]! * userRatio);
}

/** The guest's cumulative counters, advanced by the test. */
export class MadeUpGuest {
  private userSeconds = 1000;
  private lastSeconds: number | undefined;
  private ticks = 0;

  /** A snapshot at `seconds` after a period at `userRatio`; `withoutContextSwitches` leaves a feature's counter out. */
  snapshot(seconds: number, userRatio: number, withoutContextSwitches = false): GuestSnapshot {
    if (this.lastSeconds !== undefined) this.userSeconds += userRatio * VCPUS * (seconds - this.lastSeconds);
    this.lastSeconds = seconds;
    this.ticks++;
    const counters: GuestSnapshot["counters"] = {
      cpu_user_seconds: this.userSeconds,
      cpu_system_seconds: 50 + this.ticks,
      cpu_iowait_seconds: 5,
      cpu_steal_seconds: 1,
      cpu_irq_seconds: 2,
      context_switches: 1e6 + 1000 * this.ticks,
      interrupts: 5e5 + 700 * this.ticks,
      page_faults: 2e5 + 90 * this.ticks,
      major_page_faults: 300,
      disk_bytes: 1e9 + 4096 * this.ticks,
      network_bytes: 2e9 + 1500 * this.ticks,
    };
    if (withoutContextSwitches) delete counters.context_switches;
    return {
      timestampSeconds: seconds,
      vcpus: VCPUS,
      counters,
      memoryTotalBytes: 8 * 2 ** 30,
      memoryAvailableBytes: 5 * 2 ** 30,
    };
  }
}
