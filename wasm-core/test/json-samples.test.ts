import { describe, expect, it } from "vitest";
import { type DecodedSamples, SampleListDecoder } from "../src/index.js";

const encoder = new TextEncoder();

function decodeText(text: string, start = 0) {
  const decoder = new SampleListDecoder();
  decoder.setSource(encoder.encode(text));
  try {
    return decoder.decode(start);
  } finally {
    decoder.release();
  }
}

// The values JSON.parse and Number give for the same text: the decoder must match them bit for bit.
function expected(text: string): { timestamps: number[]; values: number[] } {
  const pairs = JSON.parse(text) as Array<[number, string]>;
  return { timestamps: pairs.map((p) => p[0]), values: pairs.map((p) => Number(p[1])) };
}

function expectSameBits(actual: Float64Array, wanted: number[]): void {
  expect(actual.length).toBe(wanted.length);
  wanted.forEach((value, index) => {
    if (!Object.is(actual[index], value)) throw new Error(`[${index}]: got ${actual[index]}, expected ${value}`);
  });
}

// A deterministic generator (xorshift) so a failure names a reproducible case.
function numbers(seed: number): () => number {
  let state = seed;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

// A plain decimal: up to 15 significant digits, up to 22 after the point, maybe negative.
function plainDecimal(random: () => number): string {
  const integer = String(Math.floor(random() * 10 ** Math.floor(random() * 8)));
  const fractionDigits = Math.floor(random() * 8);
  let fraction = "";
  for (let k = 0; k < fractionDigits; k++) fraction += String(Math.floor(random() * 10));
  // Zeros after the point count as significant digits only after a non-zero integer part.
  const leadingZeros = integer === "0" && random() < 0.5 ? "0".repeat(Math.floor(random() * 14)) : "";
  const text = fraction === "" ? integer : `${integer}.${leadingZeros}${fraction}`;
  return random() < 0.2 ? `-${text}` : text;
}

describe("SampleListDecoder", () => {
  it("decodes plain lists exactly as JSON.parse and Number do", () => {
    const random = numbers(7);
    for (let round = 0; round < 200; round++) {
      const pairs = Array.from(
        { length: 1 + Math.floor(random() * 40) },
        () => `[${plainDecimal(random)},"${plainDecimal(random)}"]`,
      );
      const text = `[${pairs.join(",")}]`;
      const decoded = decodeText(text) as DecodedSamples;
      const want = expected(text);
      expectSameBits(decoded.timestamps, want.timestamps);
      expectSameBits(decoded.values, want.values);
      expect(decoded.end).toBe(text.length);
    }
  });

  it("reads the edge numbers of the plain form, whitespace and an empty list", () => {
    const text =
      ' [ [1695361425 , "2151953558788"],\n\t[1695361428.5,"0.25"] ,[0,"-0"],[-0.0,"999999999999999"],[1,"0.0000000000000000000001"]\r\n] ';
    const decoded = decodeText(text, 1) as DecodedSamples;
    const want = expected(text);
    expectSameBits(decoded.timestamps, want.timestamps);
    expectSameBits(decoded.values, want.values);
    expect(text.slice(decoded.end)).toBe(" ");
    expect(decodeText("[ ]")).toMatchObject({ end: 3 });
    expect((decodeText("[ ]") as DecodedSamples).values.length).toBe(0);
  });

  it("lists value strings in any other form for the caller, with their bytes", () => {
    for (const value of ["1e5", "NaN", "+Inf", "1234567890123456", "1.00000000000000000000001", "007", "1.", "1 ", "abc", ""]) {
      const text = `[[1,"2"], [2,"${value}"],[3,"4"]]`;
      const decoded = decodeText(text) as DecodedSamples;
      expect(Array.from(decoded.timestamps), value).toEqual([1, 2, 3]);
      expect(decoded.values[0]).toBe(2);
      expect(decoded.values[1]).toBeNaN();
      expect(decoded.values[2]).toBe(4);
      const [index, from, to] = decoded.otherValues;
      expect(decoded.otherValues.length).toBe(3);
      expect(index).toBe(1);
      expect(text.slice(from, to)).toBe(value);
    }
  });

  it("leaves every other list to the caller", () => {
    for (const list of [
      '[[1e3,"1"]]',
      '[[01,"7"]]',
      '[["1","7"]]',
      '[[1,"\\u0031"]]',
      "[[1,2]]",
      '[[1,"2",3]]',
      '[[1,"2"] [2,"3"]]',
      '{"a":1}',
    ]) {
      expect(decodeText(list), list).toBe("unsupported");
    }
  });

  it("says when the bytes end before the list does", () => {
    for (const text of ['[[1,"2"],[3,"4"]', '[[1,"2"],[3,"4', "[[1,", "["]) expect(decodeText(text), text).toBe("incomplete");
  });

  it("decodes lists longer than its window and its first output room", () => {
    // ~700 kB: longer than the 256 kB window, and more samples than the first capacity of 1024.
    const count = 30_000;
    const pairs = Array.from({ length: count }, (_, k) => `[${1695361425 + 3 * k},"${(k * 0.37).toFixed(2)}"]`);
    const prefix = '{"padding":"' + "x".repeat(200_000) + '","values":';
    const text = `${prefix}[${pairs.join(",")}]}`;
    const decoded = decodeText(text, prefix.length) as DecodedSamples;
    const want = expected(`[${pairs.join(",")}]`);
    expectSameBits(decoded.timestamps, want.timestamps);
    expectSameBits(decoded.values, want.values);
    expect(text.slice(decoded.end)).toBe("}");
  });

  it("decodes several lists of one source and works again after release", () => {
    const text = '[[1,"1"]] [[2,"2"],[3,"3"]]';
    const decoder = new SampleListDecoder();
    decoder.setSource(encoder.encode(text));
    const first = decoder.decode(0) as DecodedSamples;
    const second = decoder.decode(first.end + 1) as DecodedSamples;
    expect(Array.from(second.values)).toEqual([2, 3]);
    decoder.release();
    expect(Array.from((decoder.decode(0) as DecodedSamples).timestamps)).toEqual([1]);
    decoder.release();
  });
});
