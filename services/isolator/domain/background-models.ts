// What the trainer isolator needs from AbsPower models: their identity, accuracy and a predict call.
import type { DataTable } from "../../domain/data-table.js";
import type { EnergySource } from "../../domain/energy-sources.js";
import type { FeatureGroupName } from "../../domain/feature-groups.js";

/** An AbsPower model that predicts node power from feature rows. */
export interface BackgroundPowerModel {
  /** Model name, e.g. `LinearRegressionTrainer_0`. */
  readonly modelName: string;
  readonly featureGroup: FeatureGroupName;
  /** Input features, in the order the model reads them. */
  readonly features: readonly string[];
  /** The model's MAE on its test rows, watts (metadata `mae`): the first criterion of the choice. */
  readonly maeWatts: number;
  /** Watts per component for each row of `rows`, whose columns include the model's features. */
  predict(rows: DataTable): Promise<ReadonlyMap<string, Float64Array>>;
}

/** Where the trainer isolator gets its AbsPower models from (the registry in the service). */
export interface BackgroundModelSource {
  /** Every AbsPower model of `pipelineName` for the source in the given feature groups. */
  loadAbsPowerModels(request: {
    readonly pipelineName: string;
    readonly energySource: EnergySource;
    readonly featureGroups: readonly FeatureGroupName[];
  }): Promise<{ readonly models: readonly BackgroundPowerModel[]; readonly notices: readonly string[] }>;
}
