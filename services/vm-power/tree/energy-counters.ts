// The modelled energy of each zone as a cumulative total in joules, advanced by the latest modelled watts
// times the elapsed time (wasm-core's accumulateEnergy: negative or NaN watts add nothing, so a total never
// falls), and shown as a RAPL counter: microjoules modulo the zone's max_energy_range_uj. The counter thus
// only decreases by wrapping at exactly that range, which is the one decrease Kepler reads as a wrap
// (internal/monitor/node.go, calculateEnergyDelta).
import { accumulateEnergy } from "../../../wasm-core/src/index.js";

/** What a restart needs to continue the counters (the tree writer persists it). */
export interface EnergyState {
  zones: string[];
  totalsJoules: number[];
  watts: number[];
  /** Clock seconds the totals were advanced to. */
  atSeconds: number;
}

/** Per-zone cumulative energy (see the file comment). */
export class EnergyCounters {
  private totals: Float64Array;
  private watts: Float64Array;
  private atSeconds: number;

  constructor(
    readonly zones: readonly string[],
    readonly maxEnergyRangeUj: number,
    startSeconds: number,
    from?: { totalsJoules: readonly number[]; watts: readonly number[] },
  ) {
    if (!Number.isSafeInteger(maxEnergyRangeUj) || maxEnergyRangeUj <= 0)
      throw new RangeError(`max_energy_range_uj must be a positive integer, got ${maxEnergyRangeUj}`);
    this.totals = Float64Array.from(from?.totalsJoules ?? zones.map(() => 0));
    this.watts = Float64Array.from(from?.watts ?? zones.map(() => 0));
    if (this.totals.length !== zones.length || this.watts.length !== zones.length)
      throw new RangeError(`energy state has ${this.totals.length} totals for ${zones.length} zones`);
    this.atSeconds = startSeconds;
  }

  /** Integrates the current watts up to `seconds` (a clock that went back adds nothing). */
  advanceTo(seconds: number): void {
    const elapsed = seconds - this.atSeconds;
    if (!(elapsed > 0)) return;
    this.totals = accumulateEnergy(this.totals, this.watts, elapsed);
    this.atSeconds = seconds;
  }

  /** From `seconds` on, the zones draw `watts` (one per zone, in zone order); the time before keeps the old watts. */
  setWatts(watts: ArrayLike<number>, seconds: number): void {
    if (watts.length !== this.zones.length) throw new RangeError(`${watts.length} watts for ${this.zones.length} zones`);
    this.advanceTo(seconds);
    this.watts = Float64Array.from(watts);
  }

  /** Adds `seconds` at the current watts without moving the clock (a restart's downtime). */
  addDowntime(seconds: number): void {
    if (seconds > 0) this.totals = accumulateEnergy(this.totals, this.watts, seconds);
  }

  /** The zone's counter as energy_uj shows it: whole microjoules modulo the range. */
  counterMicrojoules(zone: number): number {
    return Math.floor(this.totals[zone]! * 1e6) % this.maxEnergyRangeUj;
  }

  /** The watts the zone draws now. */
  currentWatts(zone: number): number {
    return this.watts[zone]!;
  }

  /** A copy of the state for persisting. */
  state(): EnergyState {
    return {
      zones: [...this.zones],
      totalsJoules: [...this.totals],
      watts: [...this.watts],
      atSeconds: this.atSeconds,
    };
  }
}
