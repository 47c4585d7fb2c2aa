// An AbsPower model archive (our kepler-model-db format, services/models) turned into a background-power
// predictor for the trainer isolator. Components run on MaxAbs-scaled features in wasm-core.
import type { DataTable } from "../../domain/data-table.js";
import { getColumn } from "../../domain/data-table.js";
import { InvalidInputError } from "../../domain/errors.js";
import type { FeatureGroupName } from "../../domain/feature-groups.js";
import {
  type ComponentModelFile,
  type MaxAbsScalerFile,
  type ModelDict,
  parseComponentModelFile,
  parseMaxAbsScalerFile,
  predictTreeModelFile,
  readZip,
} from "../../models/index.js";
import {
  type Matrix,
  applyScale,
  predictCurve,
  predictKnn,
  predictLinear,
  predictPolynomialLinear,
} from "../../../wasm-core/src/index.js";
import type { BackgroundPowerModel } from "./background-models.js";

/** What the registry says about a model besides its archive. */
export interface ArchivedModelInfo {
  readonly modelName: string;
  readonly featureGroup: FeatureGroupName;
  readonly maeWatts: number;
  /** metadata.json `model_file`: the component dict's file name. */
  readonly modelFile: string;
}

/** Reads a model zip into a predictor; InvalidInputError when the archive is incomplete or foreign. */
export function createArchivedAbsModel(info: ArchivedModelInfo, zip: Uint8Array): BackgroundPowerModel {
  const field = `model ${info.modelName}`;
  const entries = new Map(readZip(zip, field).map((entry) => [entry.name, entry.data]));
  const json = (name: string): unknown => {
    const data = entries.get(name);
    if (data === undefined) throw new InvalidInputError(field, `the archive has no ${name}`);
    return JSON.parse(Buffer.from(data).toString("utf8"));
  };
  const modelDict = json(info.modelFile) as ModelDict;
  let scaler: MaxAbsScalerFile | undefined;
  const components = new Map<string, ComponentModelFile>();
  for (const [component, entry] of Object.entries(modelDict)) {
    components.set(component, parseComponentModelFile(json(entry.model_file), `${field}.${component}`));
    const scalerFile = entry.fe_files[0];
    if (scaler === undefined && scalerFile !== undefined)
      scaler = parseMaxAbsScalerFile(json(scalerFile), `${field}.${scalerFile}`);
  }
  if (scaler === undefined) throw new InvalidInputError(field, "the component dict names no scaler file");
  const { features, scale } = scaler;
  return {
    modelName: info.modelName,
    featureGroup: info.featureGroup,
    features,
    maeWatts: info.maeWatts,
    predict: async (rows: DataTable) => {
      const values = new Float64Array(rows.rowCount * features.length);
      features.forEach((feature, k) => {
        values.set(getColumn(rows, feature, "background rows"), k * rows.rowCount);
      });
      const x = applyScale({ rows: rows.rowCount, cols: features.length, values }, scale);
      return new Map([...components].map(([component, model]) => [component, predictComponent(model, x)]));
    },
  };
}

/** One component's watts for scaled rows (the reference's packge_ratio is 1 for our tables: no product). */
function predictComponent(model: ComponentModelFile, x: Matrix): Float64Array {
  switch (model.kind) {
    case "linear":
    case "sgd":
      return predictLinear({ coefficients: Float64Array.from(model.coefficients), intercept: model.intercept }, x);
    case "polynomial":
      return predictPolynomialLinear({ coefficients: Float64Array.from(model.coefficients), intercept: model.intercept }, x);
    case "k_neighbors": {
      const rows = model.fit_y.length;
      const fitted = new Float64Array(rows * model.fit_x_columns.length);
      model.fit_x_columns.forEach((column, j) => {
        fitted.set(column, j * rows);
      });
      return predictKnn(
        {
          x: { rows, cols: model.fit_x_columns.length, values: fitted },
          y: Float64Array.from(model.fit_y),
          k: model.n_neighbors,
        },
        x,
      );
    }
    case "curve_fit":
      return predictCurve(
        model.function,
        model.parameters,
        x.values.subarray(model.feature_index * x.rows, (model.feature_index + 1) * x.rows),
      );
    case "gradient_boosting":
    case "xgboost_fit":
    case "svr":
      return predictTreeModelFile(model, x);
  }
}
