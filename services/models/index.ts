// The model archive format shared by trainer, registry and estimator (kepler-model-db layout).
export {
  type Checkpoint,
  checkpointText,
  createCheckpoint,
  parseCheckpoint,
  type SerializedCheckpoint,
} from "./checkpoint-file.js";
export {
  type ComponentModelFile,
  type CurveFitModelFile,
  type CurveFunction,
  CURVE_FORMULAS,
  componentModelFileName,
  type KNeighborsModelFile,
  type LinearModelFile,
  type MaxAbsScalerFile,
  parseComponentModelFile,
  parseMaxAbsScalerFile,
  POLYNOMIAL_FEATURES_FILE,
  type PolynomialFeaturesFile,
  type PolynomialModelFile,
  SCALER_FILE,
  type SgdModelFile,
} from "./component-model-file.js";
export { type PublishedModel, publishModelArchive, readCheckpoint, writeCheckpoint } from "./local-model-folder.js";
export {
  archiveZip,
  createModelArchive,
  createModelDict,
  type FeatureEngineeringFile,
  METADATA_FILE,
  type ModelArchive,
  type ModelArchiveContent,
  type ModelDict,
  WEIGHT_FILE,
} from "./model-archive.js";
export {
  assertPathSegment,
  checkpointPath,
  MAX_NAME_LENGTH,
  type ModelGroup,
  type ModelLocation,
  modelFolderPath,
  modelGroupPath,
  modelNameOf,
  modelZipPath,
  isOutputTypeName,
  OUTPUT_TYPE_NAMES,
  type OutputTypeName,
  REPORT_FOLDER,
  reportPredictionsFile,
} from "./model-location.js";
export {
  calibrationOf,
  type ComponentAccuracy,
  createModelMetadata,
  type HeldOutRecord,
  heldOutOf,
  trainingOf,
  MODEL_FORMAT_VERSION,
  type MetadataMachineSpec,
  type ModelMetadataInput,
  roundTo2,
} from "./model-metadata.js";
export { type ModelFolder, readModelFolder } from "./read-model-folder.js";
export {
  type AllWeights,
  type ComponentWeights,
  componentWeightsText,
  createCurveFitWeights,
  createLinearWeights,
  namedWeightsText,
  type NumericalVariable,
  parseWeightJson,
  type WeightJson,
} from "./weight-json.js";
export {
  countTreeNodes,
  DEFAULT_TREE_MODEL_LIMITS,
  type GradientBoostingModelFile,
  parseTreeModelFile,
  type SvrModelFile,
  TREE_MODEL_KINDS,
  type TreeArrays,
  type TreeModelFile,
  type TreeModelLimits,
  type XgboostFitModelFile,
} from "./tree-model-files.js";
export {
  createTreeModelPredictor,
  fromRegressionTree,
  predictTreeModelFile,
  toRegressionTree,
  toSvrPredictor,
  toTreeEnsemble,
} from "./tree-model-predictor.js";
export { DEFAULT_ZIP_LIMITS, readZip, type ZipLimits } from "./zip-reader.js";
export { zipFolderTree } from "./zip-folder.js";
export { createZip, type ZipEntry } from "./zip-writer.js";
export { type ComponentModels, readComponentModels } from "./archive-models.js";
export {
  type ArchiveSigningKey,
  type ArchiveTrustedKeys,
  isSignedArchive,
  keyIdOf,
  readSigningKey,
  readTrustedKeys,
  SIGNATURE_FILE,
  signArchiveEntries,
  verifyArchiveEntries,
} from "./archive-signature.js";
