// The one translation between the proto OutputType enum and the reference's names (AbsPower/DynPower).
import { InvalidInputError } from "../../domain/errors.js";
import { OutputType } from "../../generated/kepler/model/v1/types.js";
import type { OutputTypeName } from "../../models/index.js";

const ENUM_OF_NAME: Readonly<Record<OutputTypeName, OutputType>> = {
  AbsPower: OutputType.OUTPUT_TYPE_ABS_POWER,
  DynPower: OutputType.OUTPUT_TYPE_DYN_POWER,
};

/** AbsPower/DynPower from the enum; undefined for UNSPECIFIED (or an unknown value) unless required. */
export function outputTypeFromProto(value: OutputType, field: string, required: true): OutputTypeName;
export function outputTypeFromProto(value: OutputType, field?: string, required?: false): OutputTypeName | undefined;
export function outputTypeFromProto(value: OutputType, field = "output_type", required = false): OutputTypeName | undefined {
  if (value === OutputType.OUTPUT_TYPE_ABS_POWER) return "AbsPower";
  if (value === OutputType.OUTPUT_TYPE_DYN_POWER) return "DynPower";
  if (required) throw new InvalidInputError(field, "required: OUTPUT_TYPE_ABS_POWER or OUTPUT_TYPE_DYN_POWER");
  return undefined;
}

export function outputTypeToProto(name: OutputTypeName): OutputType {
  return ENUM_OF_NAME[name];
}
