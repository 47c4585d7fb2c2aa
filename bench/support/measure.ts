/** Timing statistics of a benchmark case, in milliseconds. */
export interface Timing {
  readonly medianMs: number;
  readonly minMs: number;
  readonly runs: number;
}

/** Runs `body` `warmup` times untimed, then `runs` times timed; returns the median. */
export async function measure(body: () => unknown | Promise<unknown>, runs = 9, warmup = 2): Promise<Timing> {
  for (let i = 0; i < warmup; i++) await body();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await body();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return { medianMs: samples[Math.floor(samples.length / 2)]!, minMs: samples[0]!, runs };
}

/** Prints rows as an aligned text table. */
export function printTable(title: string, header: readonly string[], rows: ReadonlyArray<readonly string[]>): void {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => (row[column] ?? "").length)));
  const line = (cells: readonly string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join("  ");
  process.stdout.write(`\n${title}\n${line(header)}\n${widths.map((w) => "-".repeat(w)).join("  ")}\n`);
  for (const row of rows) process.stdout.write(`${line(row)}\n`);
}

/** Formats milliseconds with 3 significant digits. */
export function ms(value: number): string {
  return value >= 100 ? value.toFixed(0) : value.toPrecision(3);
}
