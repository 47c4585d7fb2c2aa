// Estimate answers written straight to bytes, the hot path of Estimate and EstimateStream. The generated
// encoder builds every nested message through a fork/join writer, ~5 us for a one-row answer (more than
// the estimate itself). Here the model's fields are encoded once per loaded model by the generated code
// and kept; the per-call fields (component powers and intervals, row count, core ratio, interval level,
// request id) go into one buffer
// of the exact size. The bytes equal the generated encoder's, field for field and in its order
// (estimate-bytes.test.ts).
import { endianness } from "node:os";
import { EstimateResponse } from "../generated/kepler/model/v1/estimator_service.js";
import type { EstimateResult } from "./domain/estimate-power.js";
import type { LoadedModel } from "./domain/loaded-model.js";
import type { RegistryProvenance } from "./registry-model-source.js";

// Tags (field number << 3 | wire type) of the fields written here.
const STREAM_REQUEST_ID = 10; // EstimateStreamResponse.request_id, length-delimited
const STREAM_ESTIMATE = 18; // EstimateStreamResponse.estimate
const COMPONENT_POWERS = 10; // EstimateResponse.component_powers
const ROW_COUNT = 16; // EstimateResponse.row_count, varint
const CORE_RATIO = 41; // EstimateResponse.core_ratio, 64-bit
const COMPONENT = 10; // ComponentPower.component
const POWER_WATTS = 18; // ComponentPower.power_watts, packed doubles
const LOWER_WATTS = 26; // ComponentPower.lower_watts, packed doubles
const UPPER_WATTS = 34; // ComponentPower.upper_watts, packed doubles
const HALF_WIDTH = 41; // ComponentPower.interval_half_width_watts, 64-bit
const INTERVAL_LEVEL = 81; // EstimateResponse.interval_level, 64-bit

/** A loaded model's fields of EstimateResponse, encoded: `head` (3 and 4) and `tail` (6 to 9). */
interface ModelFields {
  head: Uint8Array;
  tail: Uint8Array;
}

const modelFields = new WeakMap<LoadedModel<RegistryProvenance>, ModelFields>();
const componentNames = new Map<string, Buffer>();

function fieldsOf(model: LoadedModel<RegistryProvenance>): ModelFields {
  let fields = modelFields.get(model);
  if (fields === undefined) {
    const { provenance } = model;
    fields = {
      head: EstimateResponse.encode(
        EstimateResponse.fromPartial({ modelName: model.modelName, modelMaeWatts: model.maeWatts }),
      ).finish(),
      tail: EstimateResponse.encode(
        EstimateResponse.fromPartial({
          featureGroup: model.featureGroup,
          selection: provenance.selection,
          modelLocation: provenance.location,
          modelMachineSpec: provenance.machineSpec,
        }),
      ).finish(),
    };
    modelFields.set(model, fields);
  }
  return fields;
}

function nameBytes(component: string): Buffer {
  let bytes = componentNames.get(component);
  if (bytes === undefined) {
    bytes = Buffer.from(component, "utf8");
    componentNames.set(component, bytes);
  }
  return bytes;
}

const varintSize = (value: number): number =>
  value < 0x80 ? 1 : value < 0x4000 ? 2 : value < 0x200000 ? 3 : value < 0x10000000 ? 4 : 5;

function writeVarint(buffer: Buffer, at: number, value: number): number {
  while (value >= 0x80) {
    buffer[at++] = (value & 0x7f) | 0x80;
    value >>>= 7;
  }
  buffer[at++] = value;
  return at;
}

type ComponentResult = EstimateResult<RegistryProvenance>["componentPowers"][number];

const packedSize = (count: number): number => (count === 0 ? 0 : 1 + varintSize(8 * count) + 8 * count);

// Sizes of one ComponentPower message's body.
function componentBodySize(name: Buffer, c: ComponentResult): number {
  const nameSize = name.length === 0 ? 0 : 1 + varintSize(name.length) + name.length;
  const bounds = packedSize(c.lowerWatts?.length ?? 0) + packedSize(c.upperWatts?.length ?? 0);
  return nameSize + packedSize(c.powerWatts.length) + bounds + ((c.halfWidthWatts ?? 0) !== 0 ? 9 : 0);
}

// Protobuf packed doubles are little-endian, as a Float64Array's memory is on a little-endian machine:
// there the values are copied as one block instead of written one by one.
const LITTLE_ENDIAN = endianness() === "LE";

function writePacked(buffer: Buffer, at: number, tag: number, values: Float64Array | undefined): number {
  if (values === undefined || values.length === 0) return at;
  buffer[at++] = tag;
  at = writeVarint(buffer, at, 8 * values.length);
  if (LITTLE_ENDIAN) {
    buffer.set(new Uint8Array(values.buffer, values.byteOffset, values.byteLength), at);
    return at + values.byteLength;
  }
  for (let i = 0; i < values.length; i++) at = buffer.writeDoubleLE(values[i]!, at);
  return at;
}

function responseSize(result: EstimateResult<RegistryProvenance>, fields: ModelFields): number {
  let size = fields.head.length + fields.tail.length;
  for (const c of result.componentPowers) {
    const body = componentBodySize(nameBytes(c.component), c);
    size += 1 + varintSize(body) + body;
  }
  if (result.rowCount !== 0) size += 1 + varintSize(result.rowCount);
  if (result.coreRatio !== 0) size += 9;
  if ((result.intervalLevel ?? 0) !== 0) size += 9;
  return size;
}

function writeResponse(buffer: Buffer, at: number, result: EstimateResult<RegistryProvenance>, fields: ModelFields): number {
  for (const c of result.componentPowers) {
    const name = nameBytes(c.component);
    buffer[at++] = COMPONENT_POWERS;
    at = writeVarint(buffer, at, componentBodySize(name, c));
    if (name.length > 0) {
      buffer[at++] = COMPONENT;
      at = writeVarint(buffer, at, name.length);
      at += name.copy(buffer, at);
    }
    at = writePacked(buffer, at, POWER_WATTS, c.powerWatts);
    at = writePacked(buffer, at, LOWER_WATTS, c.lowerWatts);
    at = writePacked(buffer, at, UPPER_WATTS, c.upperWatts);
    if ((c.halfWidthWatts ?? 0) !== 0) {
      buffer[at++] = HALF_WIDTH;
      at = buffer.writeDoubleLE(c.halfWidthWatts as number, at);
    }
  }
  if (result.rowCount !== 0) {
    buffer[at++] = ROW_COUNT;
    at = writeVarint(buffer, at, result.rowCount);
  }
  buffer.set(fields.head, at);
  at += fields.head.length;
  if (result.coreRatio !== 0) {
    buffer[at++] = CORE_RATIO;
    at = buffer.writeDoubleLE(result.coreRatio, at);
  }
  buffer.set(fields.tail, at);
  at += fields.tail.length;
  if ((result.intervalLevel ?? 0) !== 0) {
    buffer[at++] = INTERVAL_LEVEL;
    at = buffer.writeDoubleLE(result.intervalLevel as number, at);
  }
  return at;
}

/** The EstimateResponse bytes of an estimate (what EstimateResponse.encode(encodeEstimateResult(result)) gives). */
export function estimateResponseBytes(result: EstimateResult<RegistryProvenance>): Buffer {
  const fields = fieldsOf(result.model);
  const buffer = Buffer.allocUnsafe(responseSize(result, fields));
  writeResponse(buffer, 0, result, fields);
  return buffer;
}

/** The EstimateStreamResponse bytes answering item `requestId` with an estimate. */
export function estimateStreamAnswerBytes(requestId: string, result: EstimateResult<RegistryProvenance>): Buffer {
  const fields = fieldsOf(result.model);
  const size = responseSize(result, fields);
  const idLength = Buffer.byteLength(requestId, "utf8");
  const idSize = idLength === 0 ? 0 : 1 + varintSize(idLength) + idLength;
  const buffer = Buffer.allocUnsafe(idSize + 1 + varintSize(size) + size);
  let at = 0;
  if (idLength > 0) {
    buffer[at++] = STREAM_REQUEST_ID;
    at = writeVarint(buffer, at, idLength);
    at += buffer.write(requestId, at, "utf8");
  }
  buffer[at++] = STREAM_ESTIMATE;
  at = writeVarint(buffer, at, size);
  writeResponse(buffer, at, result, fields);
  return buffer;
}
