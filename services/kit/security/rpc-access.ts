/**
 * What each RPC needs when bearer tokens are configured, keyed by full method path. Every RPC the
 * servers host appears here exactly once (rpc-access.test.ts fails otherwise):
 * - write: changes stored state (models, pipelines, node types), starts work that does, or makes the server
 *   call out to an address the request names (Prometheus): a write token.
 * - read: answers from stored state or from the request's own data: open unless --auth-reads.
 * - open: health, always open so that kubelet probes (which send no token) keep working.
 */
export type RpcAccess = "open" | "read" | "write";

const REGISTRY = "/kepler.model.v1.RegistryService/";
const ESTIMATOR = "/kepler.model.v1.EstimatorService/";
const PIPELINE = "/kepler.model.v1.PipelineService/";
const EXTRACTOR = "/kepler.model.v1.ExtractorService/";
const ISOLATOR = "/kepler.model.v1.IsolatorService/";
const TRAINER = "/kepler.model.v1.TrainerService/";

export const RPC_ACCESS: Readonly<Record<string, RpcAccess>> = {
  [`${REGISTRY}PublishModel`]: "write",
  [`${REGISTRY}SelectModel`]: "read",
  [`${REGISTRY}ListBestModels`]: "read",
  [`${REGISTRY}ListModels`]: "read",
  [`${REGISTRY}GetModelArchive`]: "read",
  [`${REGISTRY}GetModelWeights`]: "read",
  [`${REGISTRY}ListNodeTypes`]: "read",
  [`${REGISTRY}MatchMachineSpec`]: "read",
  [`${REGISTRY}IndexMachine`]: "write",
  [`${REGISTRY}PutPipelineMetadata`]: "write",
  [`${REGISTRY}ListPipelineMetadata`]: "read",
  [`${REGISTRY}GetPipelineProfiles`]: "read",
  [`${REGISTRY}ImportPipeline`]: "write",
  [`${REGISTRY}ExportPipeline`]: "read",
  [`${REGISTRY}WatchModels`]: "read",
  [`${REGISTRY}RollbackModel`]: "write",

  [`${ESTIMATOR}Estimate`]: "read",
  [`${ESTIMATOR}EstimateStream`]: "read",

  [`${PIPELINE}RunPipeline`]: "write",
  [`${PIPELINE}StartOnlinePipeline`]: "write",
  [`${PIPELINE}StopOnlinePipeline`]: "write",
  [`${PIPELINE}ListPipelines`]: "read",
  [`${PIPELINE}GetPipeline`]: "read",

  [`${EXTRACTOR}Extract`]: "read",
  // The next three query a Prometheus named in the request (or a live window): the server calls out.
  [`${EXTRACTOR}ExtractFromPrometheus`]: "write",
  [`${EXTRACTOR}ListValidFeatureGroups`]: "write",
  [`${EXTRACTOR}QueryPrometheus`]: "write",

  [`${ISOLATOR}Isolate`]: "read",
  [`${ISOLATOR}BuildIdleProfile`]: "read",

  // Train publishes the models it fits to the registry.
  [`${TRAINER}Train`]: "write",
  [`${TRAINER}ListTrainers`]: "read",

  "/grpc.health.v1.Health/Check": "open",
  "/grpc.health.v1.Health/Watch": "open",
  "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo": "read",
  "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo": "read",
};

/** The access an RPC needs; an RPC missing from the table is treated as a write (fail closed). */
export function rpcAccess(path: string): RpcAccess {
  return RPC_ACCESS[path] ?? "write";
}
