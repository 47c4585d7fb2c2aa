// What the Tekton tests share: the Tasks and Pipelines under deploy/tekton, scratch folders for the steps
// (removed after each test), and the contracts the grpcurl calls are checked against: the descriptor set
// the build produces, in which the method must exist and the request JSON must decode strictly (an unknown
// field or enum name fails, as it fails in grpcurl).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create, createFileRegistry, type DescMethod, fromBinary, fromJson, type Registry, toJson } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { afterEach, beforeAll } from "vitest";
import { REPO_ROOT } from "../../support/child-process.js";
import type { Json, K8sObject } from "./rendered-manifests.js";
import { readTektonResources } from "./tekton-script.js";

/** The folders a step runs in. */
export interface StepDirs {
  scratchDir: string;
  resultsDir: string;
  workspaceDir: string;
}

export interface TektonHarness {
  /** Every Task and Pipeline. */
  resources(): K8sObject[];
  task(name: string): K8sObject;
  /** A temporary folder removed after the test. */
  tempDir(prefix: string): string;
  /** Step folders in a temporary folder removed after the test. */
  scratch(): StepDirs;
  /** A method of the contracts, e.g. rpc("PipelineService", "RunPipeline"). */
  rpc(service: string, name: string): DescMethod;
  /** The RPC a grpcurl argument list calls, looked up in the descriptor set. */
  methodOf(args: readonly string[]): DescMethod;
  /** Decodes the `-d` request of a grpcurl call strictly and returns it as canonical JSON. */
  requestOf(args: readonly string[]): Json;
  /** Decodes a request in the protobuf binary encoding and returns it as canonical JSON. */
  decodeRequest(method: DescMethod, bytes: Uint8Array): Json;
  /** Response messages as grpcurl prints them over reflection: indented JSON, proto field names. */
  grpcurlOutput(method: DescMethod, messages: Json[]): string;
}

/** Reads the resources and the descriptor set in a beforeAll; removes the scratch folders after each test. */
export function useTektonHarness(): TektonHarness {
  let registry: Registry;
  let resources: K8sObject[];
  const scratchDirs: string[] = [];
  beforeAll(() => {
    const bytes = readFileSync(join(REPO_ROOT, "services/generated/descriptor-set.binpb"));
    registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, bytes));
    resources = readTektonResources();
  });
  afterEach(() => {
    for (const dir of scratchDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const tempDir = (prefix: string) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    scratchDirs.push(dir);
    return dir;
  };
  const methodOf = (args: readonly string[]) => {
    const path = args.find((arg) => /^kepler\.model\.v1\.\w+\/\w+$/.test(arg));
    if (path === undefined) throw new Error(`no method in grpcurl ${args.join(" ")}`);
    const [serviceName, methodName] = path.split("/") as [string, string];
    const method = registry.getService(serviceName)?.methods.find((candidate) => candidate.name === methodName);
    if (method === undefined) throw new Error(`${path} is not in the contracts`);
    return method;
  };
  return {
    resources: () => resources,
    task: (name) => {
      const found = resources.find((resource) => resource.kind === "Task" && resource.metadata.name === name);
      if (found === undefined) throw new Error(`no Task ${name}`);
      return found;
    },
    tempDir,
    scratch: () => {
      const scratchDir = tempDir("tekton-step-");
      return { scratchDir, resultsDir: join(scratchDir, "results"), workspaceDir: join(scratchDir, "workspace") };
    },
    rpc: (service, name) => registry.getService(`kepler.model.v1.${service}`)!.methods.find((method) => method.name === name)!,
    methodOf,
    requestOf: (args) => {
      const data = args[args.indexOf("-d") + 1];
      const method = methodOf(args);
      return toJson(method.input, fromJson(method.input, JSON.parse(data ?? ""), { registry }), { registry });
    },
    decodeRequest: (method, bytes) => toJson(method.input, fromBinary(method.input, bytes), { registry }),
    grpcurlOutput: (method, messages) =>
      messages
        .map(
          (init) =>
            `${JSON.stringify(toJson(method.output, create(method.output, init), { registry, useProtoFieldName: true }), null, 2)}\n`,
        )
        .join(""),
  };
}
