// The typed wrapper over wasm-core: the only code that touches raw exports.
export { F64Buffer, withBuffers } from "./f64-buffer.js";
export { type CounterResetPolicy, counterToRate, counterToRateInWasm } from "./rates.js";
export { KernelStatus, WasmKernelError, assertKernelOk } from "./status.js";
export {
  type ColumnStats,
  columnStats,
  complementRows,
  distinctValues,
  indexOfValues,
  multiplyRows,
  rowsWhereEqual,
  takeElements,
  takeRows,
  vectorStats,
} from "./gather.js";
export { type F64Slice, copySlice, readSlice, sliceOf } from "./f64-slice.js";
export { type GatheredRows, type RowLevelColumns, gatherContainerRows, gatherNodeRows } from "./gather-rows.js";
export {
  accumulateOnAxis,
  counterToRateOnSlices,
  countGreaterThan,
  countPresentKeys,
  countDecreases,
  gatherByIndex,
  intersectionOfSorted,
  keepPowerRows,
  locateOnAxis,
  meanOrMissing,
  overlayLatestChange,
  sumOverKeys,
  unionOfSorted,
} from "./aggregate.js";
export { rollingMeanColumns } from "./rolling.js";
export { type DecodedSamples, SampleListDecoder } from "./json-samples.js";
export { pearsonWithTarget } from "./correlation.js";
export {
  type Matrix,
  type WasmMatrix,
  assertMatrix,
  createMatrix,
  matrixFromWasm,
  matrixToWasm,
  withResidentMatrix,
  withResidentVector,
} from "./matrix.js";
export { applyScale, applyScaleInWasm, applyScaleResident, fitMaxAbsScale } from "./scaling.js";
export { maxAbsoluteError, meanAbsoluteError, meanAbsolutePercentageError, residuals } from "./metrics.js";
export { conformalHalfWidth, countCovered, predictionBounds, sortedAbsoluteResiduals } from "./intervals.js";
export { permutation } from "./random.js";
export {
  type FitLinearOptions,
  type LinearModel,
  type LinearModelSet,
  type PredictLinearOptions,
  fitLinear,
  linearModelSet,
  predictLinear,
  predictLinearMany,
} from "./linear.js";
export {
  fitPolynomialLinear,
  polynomialFeatures,
  polynomialWidth,
  predictPolynomialLinear,
  predictPolynomialLinearMany,
} from "./polynomial.js";
export { type FitSgdOptions, type SgdModel, fitSgd } from "./sgd.js";
export { type KnnModel, type PredictKnnOptions, predictKnn } from "./neighbours.js";
export { type CurveFit, type CurveKind, type FitCurveOptions, fitCurve, predictCurve } from "./curve-fit.js";
export {
  type OffsetResult,
  type SqueezeColumn,
  type SqueezeMode,
  type TimedColumns,
  alignOnTimestamps,
  dynamicPower,
  scaleByShare,
  squeezeByTimestamp,
  subtractGroupOffsets,
} from "./isolation.js";
export {
  type KeplerLinearWeights,
  clampNonNegative,
  divideOrZero,
  firstNonFinite,
  gatherFeatureColumns,
  predictKeplerLinear,
} from "./estimate.js";
export {
  type PackedTreeEnsemble,
  type RegressionTree,
  type TreeEnsemble,
  TREE_LEAF,
  TREE_UNDEFINED,
  packTreeEnsemble,
  predictTreeEnsemble,
} from "./regression-tree.js";
export {
  type FitGradientBoostingOptions,
  type GradientBoostingModel,
  MAX_GRADIENT_BOOSTING_DEPTH,
  fitGradientBoosting,
} from "./gradient-boosting.js";
export {
  type FitHistogramBoostingOptions,
  type HistogramBoostingModel,
  MAX_HISTOGRAM_BOOSTING_DEPTH,
  fitHistogramBoosting,
} from "./histogram-boosting.js";
export { type FitSvrOptions, type SvrModel, type SvrPredictor, fitSvr, predictSvr } from "./svr.js";
export { accumulateEnergy, usedFraction } from "./guest.js";
