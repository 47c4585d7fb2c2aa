// The online pipeline the end-to-end tests start on the coremark recording: rapl-sysfs CounterOnly,
// the min isolator, LinearRegression AbsPower models only, no hints, seed 0.
import type { OnlinePipelineSpec } from "../../services/pipeline/domain/online-pipelines.js";

type OnlineOptions = OnlinePipelineSpec["options"];

/** The run options of pipeline `pipelineName` reading `window` (its times are replaced per run). */
export function coremarkOnlineOptions(pipelineName: string, window: OnlineOptions["window"]): OnlineOptions {
  return {
    pipelineName,
    energySources: ["rapl-sysfs"],
    featureGroups: ["CounterOnly"],
    extractor: "default",
    isolator: "min",
    targetHints: [],
    backgroundHints: [],
    absPipelineName: "",
    absTrainerNames: ["LinearRegressionTrainer"],
    dynTrainerNames: [],
    seed: 0,
    useVmMetrics: false,
    thirdPartyMetricNames: [],
    window,
  };
}
