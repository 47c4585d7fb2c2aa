// Loads the extractor's recorded inputs and the reference's golden outputs (test/fixtures/extractor).
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";

const FIXTURES = new URL("../fixtures/extractor/", import.meta.url);

/** The JSON text of a recorded response: "coremark" or "idle". */
export function recordedResponseText(name: "coremark" | "idle"): string {
  const file = name === "coremark" ? "coremark-2023-09-28.json.gz" : "idle-2023-12-13.json.gz";
  return gunzipSync(readFileSync(new URL(file, FIXTURES))).toString("utf8");
}

/** The path of a fixture file. */
export function extractorFixturePath(file: string): string {
  return new URL(file, FIXTURES).pathname;
}

/** A golden CSV: header and rows of raw fields (the files hold no quoted fields). */
export interface GoldenCsv {
  readonly header: readonly string[];
  readonly rows: readonly (readonly string[])[];
  readonly text: string;
}

/** Reads a golden CSV from the fixtures. */
export function readGoldenCsv(file: string): GoldenCsv {
  const text = readFileSync(new URL(file, FIXTURES), "utf8");
  const [header, ...rows] = text
    .trimEnd()
    .split("\n")
    .map((line) => line.split(","));
  return { header: header!, rows, text };
}

/** Reads a JSON fixture. */
export function readFixtureJson<T>(file: string): T {
  return JSON.parse(readFileSync(new URL(file, FIXTURES), "utf8")) as T;
}

/** |a - b| / max(|b|, 1e-300), or |a - b| when |b| < 1 (the README's "1e-9 relative, abs near 0"). */
export function relativeError(actual: number, expected: number): number {
  const difference = Math.abs(actual - expected);
  return Math.abs(expected) < 1 ? difference : difference / Math.abs(expected);
}
