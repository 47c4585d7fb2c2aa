// The six services a mesh runs, written out here (not read from the code under test), in name order, and
// the flags that put each on a free port.

/** Registry, estimator, pipeline, extractor, isolator and trainer, sorted by name. */
export const SIX_SERVICES = ["estimator", "extractor", "isolator", "pipeline", "registry", "trainer"] as const;

/** `--<service>-port 0` for each service: command-line flags. */
export const PORT_ZERO_ARGS: readonly string[] = SIX_SERVICES.flatMap((name) => [`--${name}-port`, "0"]);

/** `<service>-port: "0"` for each service: startMesh flags. */
export const PORT_ZERO_FLAGS: Readonly<Record<string, string>> = Object.fromEntries(
  SIX_SERVICES.map((name) => [`${name}-port`, "0"]),
);
