import type { ServiceName } from "../kit/config/service-addresses.js";
import type { ServiceLauncher } from "../kit/config/service-launcher.js";
import { estimatorLauncher } from "../estimator/main.js";
import { extractorLauncher } from "../extractor/main.js";
import { isolatorLauncher } from "../isolator/main.js";
import { pipelineLauncher } from "../pipeline/main.js";
import { registryLauncher } from "../registry/main.js";
import { trainerLauncher } from "../trainer/main.js";

/** The one list of services the launcher knows (an explicit registry, not paths built from strings). */
export const SERVICE_LAUNCHERS: Record<ServiceName, ServiceLauncher> = {
  registry: registryLauncher as ServiceLauncher,
  estimator: estimatorLauncher as ServiceLauncher,
  pipeline: pipelineLauncher as ServiceLauncher,
  extractor: extractorLauncher as ServiceLauncher,
  isolator: isolatorLauncher as ServiceLauncher,
  trainer: trainerLauncher as ServiceLauncher,
};
