/** Kernel status codes, mirrored from wasm-core/assembly/status.ts. */
export const KernelStatus = {
  ok: 0,
  dimension: -1,
  notFinite: -2,
  singular: -3,
  notConverged: -4,
  tooFewRows: -5,
} as const;

const descriptions: Record<number, string> = {
  [-1]: "dimension mismatch",
  [-2]: "input contains NaN or infinity",
  [-3]: "matrix is singular",
  [-4]: "did not converge",
  [-5]: "too few rows",
};

/** A kernel refused its input. `status` is one of KernelStatus; `kernel` names the export. */
export class WasmKernelError extends Error {
  constructor(
    readonly kernel: string,
    readonly status: number,
  ) {
    super(`${kernel}: ${descriptions[status] ?? `status ${status}`}`);
    this.name = "WasmKernelError";
  }
}

/** Throws WasmKernelError unless status is OK. */
export function assertKernelOk(kernel: string, status: number): void {
  if (status !== KernelStatus.ok) throw new WasmKernelError(kernel, status);
}
