// Every RPC the servers host is classified exactly once as open, read or write, so adding an RPC to a
// .proto without deciding whether it needs a write token fails here.
import { describe, expect, it } from "vitest";
import { RPC_ACCESS, rpcAccess } from "../../services/kit/security/rpc-access.js";
import { hostedRpcs } from "./rpc-definitions.js";

describe("the RPC access table", () => {
  it("classifies every hosted RPC, and names no RPC that does not exist", async () => {
    const rpcs = await hostedRpcs();
    const paths = rpcs.map((rpc) => rpc.path);
    expect(new Set(paths).size).toBe(paths.length);
    expect(paths.length).toBeGreaterThanOrEqual(33);
    expect(
      paths.filter((path) => !(path in RPC_ACCESS)),
      "unclassified RPCs: add them to services/kit/security/rpc-access.ts",
    ).toEqual([]);
    expect(
      Object.keys(RPC_ACCESS).filter((path) => !paths.includes(path)),
      "stale entries",
    ).toEqual([]);
  });

  it("requires a write token for every state-changing RPC the issue lists, and keeps health open", () => {
    for (const rpc of [
      "RegistryService/PublishModel",
      "RegistryService/ImportPipeline",
      "RegistryService/IndexMachine",
      "RegistryService/PutPipelineMetadata",
      "PipelineService/RunPipeline",
      "PipelineService/StartOnlinePipeline",
      "PipelineService/StopOnlinePipeline",
      "TrainerService/Train",
      "ExtractorService/QueryPrometheus",
    ])
      expect(rpcAccess(`/kepler.model.v1.${rpc}`), rpc).toBe("write");
    for (const rpc of ["EstimatorService/Estimate", "RegistryService/SelectModel", "RegistryService/ListModels"])
      expect(rpcAccess(`/kepler.model.v1.${rpc}`), rpc).toBe("read");
    expect(rpcAccess("/grpc.health.v1.Health/Check")).toBe("open");
    expect(rpcAccess("/kepler.model.v1.RegistryService/NotYetWritten")).toBe("write");
  });
});
