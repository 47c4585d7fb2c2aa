import { describe, expect, it } from "vitest";
import { formatFlags, parseFlags } from "./parse-flags.js";

const SPECS = [
  { name: "pipeline", aliases: ["name"], valueName: "name", description: "Pipeline name." },
  { name: "default-models", boolean: true, description: "Train default models." },
  { name: "json", boolean: true, description: "Print JSON." },
];

describe("parseFlags", () => {
  it("stores an alias under the flag's own name", () => {
    expect(parseFlags(["--name", "a"], SPECS).flags).toEqual({ pipeline: "a" });
    expect(parseFlags(["--name=b", "run"], SPECS)).toEqual({ flags: { pipeline: "b" }, positionals: ["run"] });
  });

  it("reads --no-<flag> as false for boolean flags only", () => {
    expect(parseFlags(["--no-default-models", "--json"], SPECS).flags).toEqual({ "default-models": false, json: true });
    expect(parseFlags(["--default-models=false"], SPECS).flags).toEqual({ "default-models": false });
    expect(() => parseFlags(["--no-pipeline"], SPECS)).toThrow("unknown flag --no-pipeline");
    expect(() => parseFlags(["--no-json=true"], SPECS)).toThrow("flag --no-json takes no value");
  });

  it("lists aliases in help", () => {
    expect(formatFlags(SPECS)[0]).toBe(`  ${"--pipeline <name>".padEnd(34)} Pipeline name. (also --name)`);
  });
});
