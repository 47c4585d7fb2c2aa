// `kepler-model serve` as a child process, started as an operator would: all six services and /metrics on
// free ports, JSON logs at warn, no default models; the addresses it prints, by service.
import { type RunningChild, spawnNode } from "./child-process.js";
import { PORT_ZERO_ARGS } from "./six-services.js";

export interface ServeChild {
  readonly serve: RunningChild;
  /** The [service, address] lines serve printed at startup, in their order. */
  readonly printed: ReadonlyArray<readonly [string, string]>;
  /** The same addresses by service name. */
  readonly addresses: Record<string, string>;
}

/**
 * Spawns serve with `flags` added, pushed onto `children` (for the test's teardown to kill) before it is
 * awaited, and waits up to `startupMs` for its "Stop with Ctrl-C" line.
 */
export async function spawnServe(
  children: RunningChild[],
  flags: readonly string[] = [],
  startupMs?: number,
): Promise<ServeChild> {
  const serve = spawnNode([
    ...["bin/kepler-model.js", "serve", "--no-default-models", "--log-format", "json", "--log-level", "warn"],
    ...PORT_ZERO_ARGS,
    ...["--metrics-port", "0", ...flags],
  ]);
  children.push(serve);
  await serve.waitForOutput(/Stop with Ctrl-C/, startupMs);
  const printed = [...serve.output().matchAll(/^ {2}(\w+) +(127\.0\.0\.1:\d+)$/gm)].map((m) => [m[1]!, m[2]!] as const);
  return { serve, printed, addresses: Object.fromEntries(printed) };
}
