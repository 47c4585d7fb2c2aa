// A real estimator on 127.0.0.1:0 as the registry tests start it: it asks the registry at the given
// address (5 s deadline), with no machine spec file and no Kepler socket.
import { startEstimator } from "../../services/estimator/main.js";
import { silentLogger } from "../../services/kit/observe/logger.js";

type EstimatorSettings = Parameters<typeof startEstimator>[0];

/** Starts the estimator for `registryAddress`; `settings` adds to or overrides its configuration. */
export function startTestEstimator(registryAddress: string, settings: Partial<EstimatorSettings> = {}) {
  return startEstimator(
    {
      host: "127.0.0.1",
      port: 0,
      registryAddress,
      machineSpecFile: "",
      estimatorSocket: "",
      registryDeadlineMs: 5000,
      ...settings,
    },
    { logger: silentLogger() },
  );
}
