// Status codes returned by kernels. The wrapper (wasm-core/src/status.ts) turns
// them into typed errors; a trap is always a bug, never an input problem.
export const OK: i32 = 0;
export const ERR_DIMENSION: i32 = -1;
export const ERR_NOT_FINITE: i32 = -2;
export const ERR_SINGULAR: i32 = -3;
export const ERR_NOT_CONVERGED: i32 = -4;
export const ERR_TOO_FEW_ROWS: i32 = -5;
