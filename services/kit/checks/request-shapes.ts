// What the request checks (request-bounds.ts, wire-bounds.ts) need to know of every request message:
// field names, numbers, kinds and bounds. Written at build time from the descriptors (`npm run
// build:proto` runs write-request-shapes.ts into services/generated/request-shapes.ts), so a server
// starts without parsing the descriptor set and its comments (about 50 ms of every process start).
import { type DescField, type DescMessage, type FileRegistry, ScalarType } from "@bufbuild/protobuf";
import { boundOf, type FieldBound } from "./field-bounds.js";

/** One field of a request message (or of a message inside one). */
export interface FieldShape {
  /** The proto name, as error paths say it. */
  name: string;
  /** The ts-proto property. */
  localName: string;
  number: number;
  kind: DescField["fieldKind"];
  /** For a list: what it holds. */
  listKind?: "scalar" | "enum" | "message";
  /** The ts-proto property of the oneof holding this field. */
  oneof?: string;
  /** The type name of a message field, of a list's messages, or of a map's message values. */
  message?: string;
  /** For a list of packed scalars: bytes per entry, 0 for varints. */
  packedEntryBytes?: number;
  bound?: FieldBound;
}

/** Every RPC's request type and the fields of every message a request can hold. */
export interface RequestShapes {
  /** RPC path, e.g. "/kepler.model.v1.EstimatorService/Estimate" -> request type name. */
  methods: Record<string, string>;
  /** Type name -> fields. */
  messages: Record<string, FieldShape[]>;
}

/** The shapes of the requests of every service whose name starts with `prefix`, read from the descriptors. */
export function describeRequestShapes(registry: FileRegistry, prefix = "kepler."): RequestShapes {
  const shapes: RequestShapes = { methods: {}, messages: {} };
  const addMessage = (desc: DescMessage): void => {
    if (shapes.messages[desc.typeName] !== undefined) return;
    const fields: FieldShape[] = [];
    shapes.messages[desc.typeName] = fields;
    for (const field of desc.fields) {
      const shape: FieldShape = { name: field.name, localName: field.localName, number: field.number, kind: field.fieldKind };
      if (field.fieldKind === "list") shape.listKind = field.listKind;
      if (field.oneof !== undefined) shape.oneof = field.oneof.localName;
      if (field.message !== undefined) {
        shape.message = field.message.typeName;
        addMessage(field.message);
      }
      const packed = packedEntryBytes(field);
      if (packed !== undefined) shape.packedEntryBytes = packed;
      const bound = boundOf(field);
      if (bound !== undefined) shape.bound = bound;
      fields.push(shape);
    }
  };
  for (const type of registry) {
    if (type.kind !== "service" || !type.typeName.startsWith(prefix)) continue;
    for (const method of type.methods) {
      shapes.methods[`/${type.typeName}/${method.name}`] = method.input.typeName;
      addMessage(method.input);
    }
  }
  return shapes;
}

/** The RPC paths of the named services, with their request types. */
export function methodsOf(shapes: RequestShapes, serviceNames: readonly string[]): Array<[path: string, type: string]> {
  return Object.entries(shapes.methods).filter(([path]) => serviceNames.some((name) => path.startsWith(`/${name}/`)));
}

function packedEntryBytes(field: DescField): number | undefined {
  if (field.fieldKind !== "list" || field.listKind !== "scalar") return undefined;
  switch (field.scalar) {
    case ScalarType.DOUBLE:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return 8;
    case ScalarType.FLOAT:
    case ScalarType.FIXED32:
    case ScalarType.SFIXED32:
      return 4;
    case ScalarType.STRING:
    case ScalarType.BYTES:
      return undefined;
    default:
      return 0;
  }
}
