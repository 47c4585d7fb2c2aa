// The one WASM module every service imports. One file per kernel family; this file only re-exports.
export { allocBytes, freeBytes } from "./memory";
export { counterToRate, RESET_AS_PROMETHEUS, RESET_REPEAT_PREVIOUS } from "./rates";
export { takeRows, columnStats, multiplyRows, rowsWhereEqual, distinctValues, indexOfValues, complementRows } from "./gather";
export {
  unionSorted,
  intersectSorted,
  locateOnAxis,
  accumulateOnAxis,
  overlayLatestChange,
  sumOverKeys,
  gatherByIndex,
  meanOrMissing,
  keepPowerRows,
  gatherContainerRows,
  gatherNodeRows,
  countPresentKeys,
  countGreaterThan,
  countDecreases,
} from "./aggregate";
export { rollingMean } from "./rolling";
export { pearsonColumns } from "./correlation";
export { applyScale, maxAbsScale } from "./scaling";
export { maxAbsoluteError, meanAbsoluteError, meanAbsolutePercentageError, residuals } from "./metrics";
export { permutation } from "./random";
export { fitLinear, predictLinear } from "./least-squares";
export { polynomialFeatures2 } from "./polynomial";
export { fitSgd } from "./sgd";
export { predictKnn } from "./neighbours";
export { fitCurve, predictCurve } from "./curve-fit";
export { normalizeRowSums, subtractGroupOffsets, dynamicPower, scaleByShare } from "./isolation";
export { gatherFeatureColumns, firstNonFinite, predictWeightsLinear, divideOrZero, clampNonNegative } from "./estimate";
export { predictTreeEnsemble } from "./regression-tree";
export { usedFraction, accumulateEnergy } from "./guest";
export { fitGradientBoosting } from "./gradient-boosting";
export { fitHistogramBoosting } from "./histogram-boosting";
export { fitSvr, predictSvr } from "./svr";
export { decodeSamples } from "./json-samples";
export { sortedAbsResiduals, conformalHalfWidth, intervalBounds, countCovered } from "./intervals";
