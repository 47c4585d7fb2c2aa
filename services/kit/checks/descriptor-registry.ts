import { createFileRegistry, type FileRegistry, fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { loadDescriptorSet } from "../transport/reflection.js";

let registry: FileRegistry | undefined;

/** Our protos' descriptors (with their comments), read once from the descriptor set the build writes. */
export function loadDescriptorRegistry(): FileRegistry {
  registry ??= createFileRegistry(fromBinary(FileDescriptorSetSchema, loadDescriptorSet()));
  return registry;
}
