import { existsSync, readFileSync } from "node:fs";
import { setFlagsFromString } from "node:v8";

/** Raw exports of wasm-core/build/core.wasm. Only files in wasm-core/src touch these. */
export interface CoreExports {
  memory: WebAssembly.Memory;
  allocBytes(size: number): number;
  freeBytes(ptr: number): void;
  counterToRate(timestampsPtr: number, valuesPtr: number, n: number, outPtr: number, resetPolicy: number): number;
  takeRows(xPtr: number, rows: number, cols: number, rowsPtr: number, nRows: number, outPtr: number): number;
  columnStats(xPtr: number, rows: number, cols: number, outPtr: number): number;
  multiplyRows(xPtr: number, rows: number, cols: number, factorsPtr: number, outPtr: number): number;
  rowsWhereEqual(valuesPtr: number, n: number, value: number, outPtr: number): number;
  distinctValues(valuesPtr: number, n: number, scratchPtr: number, outPtr: number): number;
  indexOfValues(haystackPtr: number, n: number, needlesPtr: number, m: number, scratchPtr: number, outPtr: number): number;
  complementRows(n: number, rowsPtr: number, m: number, markPtr: number, outPtr: number): number;
  unionSorted(aPtr: number, na: number, bPtr: number, nb: number, outPtr: number): number;
  intersectSorted(aPtr: number, na: number, bPtr: number, nb: number, outPtr: number): number;
  locateOnAxis(axisPtr: number, nAxis: number, tsPtr: number, n: number, outPtr: number): number;
  accumulateOnAxis(
    axisPtr: number,
    nAxis: number,
    tsPtr: number,
    valuesPtr: number,
    n: number,
    sumsPtr: number,
    countsPtr: number,
    compsPtr: number,
  ): number;
  overlayLatestChange(
    axisPtr: number,
    nAxis: number,
    tsPtr: number,
    valuesPtr: number,
    n: number,
    outPtr: number,
    changedAtPtr: number,
    countsPtr: number,
  ): number;
  sumOverKeys(gridPtr: number, planes: number, keys: number, steps: number, outPtr: number): number;
  gatherByIndex(srcPtr: number, nSrc: number, indexPtr: number, n: number, missing: number, outPtr: number): number;
  meanOrMissing(sumsPtr: number, countsPtr: number, n: number, missing: number, truncate: number, outPtr: number): number;
  keepPowerRows(axisPtr: number, n: number, colsPtr: number, nCols: number, nSumCols: number): number;
  gatherContainerRows(
    gridPtr: number,
    planes: number,
    keys: number,
    steps: number,
    presencePtr: number,
    rowIndexPtr: number,
    rowColsPtr: number,
    nRowCols: number,
    nRows: number,
    outPtr: number,
    nOut: number,
    outKeyPtr: number,
    outStepPtr: number,
    stepFrom: number,
    stepTo: number,
  ): number;
  gatherNodeRows(
    sumsPtr: number,
    planes: number,
    steps: number,
    rowCountsPtr: number,
    rowIndexPtr: number,
    rowColsPtr: number,
    nRowCols: number,
    nRows: number,
    nMeanCols: number,
    outPtr: number,
    outStepPtr: number,
  ): number;
  countPresentKeys(presencePtr: number, keys: number, steps: number, outPtr: number): number;
  countGreaterThan(valuesPtr: number, n: number, threshold: number): number;
  decodeSamples(
    bytesPtr: number,
    length: number,
    start: number,
    timestampsPtr: number,
    valuesPtr: number,
    exceptionsPtr: number,
    capacity: number,
    infoPtr: number,
  ): number;
  countDecreases(valuesPtr: number, n: number): number;
  rollingMean(srcPtr: number, n: number, window: number, outPtr: number): number;
  pearsonColumns(xPtr: number, rows: number, cols: number, yPtr: number, outPtr: number): number;
  maxAbsScale(xPtr: number, rows: number, cols: number, scalePtr: number): number;
  applyScale(xPtr: number, rows: number, cols: number, scalePtr: number, outPtr: number): number;
  meanAbsoluteError(yPtr: number, pPtr: number, n: number, outPtr: number): number;
  residuals(yPtr: number, pPtr: number, n: number, outPtr: number): number;
  maxAbsoluteError(yPtr: number, pPtr: number, n: number, outPtr: number): number;
  meanAbsolutePercentageError(yPtr: number, pPtr: number, n: number, outPtr: number): number;
  sortedAbsResiduals(yPtr: number, pPtr: number, n: number, outPtr: number): number;
  conformalHalfWidth(sortedPtr: number, n: number, level: number, outPtr: number): number;
  intervalBounds(pPtr: number, n: number, halfWidth: number, lowerPtr: number, upperPtr: number): number;
  countCovered(yPtr: number, lowerPtr: number, upperPtr: number, n: number): number;
  permutation(n: number, seed: number, outPtr: number): number;
  fitLinear(xPtr: number, rows: number, p: number, yPtr: number, design: number, positive: number, outPtr: number): number;
  predictLinear(
    xPtr: number,
    rows: number,
    p: number,
    design: number,
    coefPtr: number,
    intercept: number,
    outPtr: number,
  ): number;
  polynomialFeatures2(xPtr: number, rows: number, p: number, outPtr: number): number;
  fitSgd(xPtr: number, rows: number, p: number, yPtr: number, paramsPtr: number, modelPtr: number): number;
  predictKnn(
    xPtr: number,
    rows: number,
    p: number,
    yPtr: number,
    k: number,
    queriesPtr: number,
    qRows: number,
    algorithm: number,
    outPtr: number,
  ): number;
  fitCurve(kind: number, xPtr: number, yPtr: number, m: number, pPtr: number, maxfev: number, resultPtr: number): number;
  predictCurve(kind: number, parametersPtr: number, xPtr: number, n: number, outPtr: number): number;
  normalizeRowSums(blockPtr: number, rows: number, cols: number): number;
  subtractGroupOffsets(
    blockPtr: number,
    rows: number,
    cols: number,
    groupPtr: number,
    offsetsPtr: number,
    groups: number,
    clamp: number,
    outPtr: number,
  ): number;
  dynamicPower(nodePtr: number, backgroundPtr: number, n: number, outPtr: number): number;
  scaleByShare(labelPtr: number, nodePtr: number, dynamicPtr: number, n: number, outPtr: number): number;
  gatherFeatureColumns(srcPtr: number, rows: number, srcCols: number, indexPtr: number, nOut: number, outPtr: number): number;
  firstNonFinite(ptr: number, n: number): number;
  predictWeightsLinear(
    xPtr: number,
    rows: number,
    p: number,
    scalePtr: number,
    weightPtr: number,
    bias: number,
    outPtr: number,
  ): number;
  divideOrZero(xPtr: number, n: number, divisor: number, outPtr: number): number;
  clampNonNegative(ptr: number, n: number): number;
  usedFraction(availablePtr: number, totalPtr: number, n: number, outPtr: number): number;
  accumulateEnergy(joulesPtr: number, wattsPtr: number, n: number, seconds: number): number;
  predictTreeEnsemble(
    xPtr: number,
    rows: number,
    cols: number,
    nodesPtr: number,
    treeStartsPtr: number,
    nTrees: number,
    base: number,
    scale: number,
    outPtr: number,
  ): number;
  fitGradientBoosting(
    xPtr: number,
    rows: number,
    cols: number,
    yPtr: number,
    nTrees: number,
    maxDepth: number,
    learningRate: number,
    randomState: number,
    nodesPtr: number,
    nodeCountsPtr: number,
    initPtr: number,
  ): number;
  fitHistogramBoosting(
    xPtr: number,
    rows: number,
    cols: number,
    yPtr: number,
    initPtr: number,
    paramsPtr: number,
    nodesPtr: number,
    nodeCountsPtr: number,
    basePtr: number,
  ): number;
  fitSvr(
    xPtr: number,
    rows: number,
    cols: number,
    yPtr: number,
    paramsPtr: number,
    svPtr: number,
    coefPtr: number,
    infoPtr: number,
  ): number;
  predictSvr(
    svPtr: number,
    nSv: number,
    cols: number,
    coefPtr: number,
    intercept: number,
    gamma: number,
    xPtr: number,
    rows: number,
    outPtr: number,
  ): number;
  [kernel: string]: unknown;
}

let instance: CoreExports | undefined;

/** The module instance, compiled and instantiated on first use (nothing happens at import time). */
export function core(): CoreExports {
  if (instance === undefined) instance = instantiate();
  return instance;
}

function instantiate(): CoreExports {
  // Beside the sources (wasm-core/build), or beside a bundle that carries a copy (dist/, npm run build:exporter).
  const wasmUrl = new URL("../build/core.wasm", import.meta.url);
  let bytes: Buffer;
  try {
    bytes = readFileSync(existsSync(wasmUrl) ? wasmUrl : new URL("./core.wasm", import.meta.url));
  } catch (cause) {
    throw new Error(`wasm-core is not built (${wasmUrl.pathname} missing): run \`npm run build\``, { cause });
  }
  // Compile with the optimising tier from the start: under V8's baseline tier (Liftoff) a long
  // first call (a 1M-row fit) runs to completion unoptimised, about 2x slower. Set before compiling.
  setFlagsFromString("--no-liftoff");
  const module = new WebAssembly.Module(new Uint8Array(bytes));
  // Filled in once instantiated; abort() may only run after that.
  const instanceMemory: { current?: WebAssembly.Memory } = {};
  const imports = {
    env: {
      // AssemblyScript calls abort on a failed assertion or an out-of-bounds access: a bug, not bad input.
      abort(messagePtr: number, filePtr: number, line: number, column: number): never {
        const memory = instanceMemory.current;
        const text = (ptr: number) => (memory && ptr ? readString(memory, ptr) : "?");
        throw new Error(`wasm-core abort: ${text(messagePtr)} at ${text(filePtr)}:${line}:${column}`);
      },
      seed(): number {
        return Date.now();
      },
      trace(): void {},
    },
  };
  const exports = new WebAssembly.Instance(module, imports).exports as unknown as CoreExports;
  instanceMemory.current = exports.memory;
  return exports;
}

// AssemblyScript strings are UTF-16 with the byte length stored 4 bytes before the pointer.
function readString(memory: WebAssembly.Memory, ptr: number): string {
  const byteLength = new Uint32Array(memory.buffer, ptr - 4, 1)[0] ?? 0;
  return String.fromCharCode(...new Uint16Array(memory.buffer, ptr, byteLength >>> 1));
}
