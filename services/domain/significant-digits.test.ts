import { describe, expect, it } from "vitest";
import { significant } from "./significant-digits.js";

describe("significant", () => {
  it("keeps three significant digits, whole numbers from 100 up, and no exponent for page-sized values", () => {
    const cases: Array<[unknown, string]> = [
      [12.3273, "12.3"],
      [0.012345, "0.0123"],
      [1234.5, "1235"],
      [150.4, "150"],
      [99.96, "100"],
      [-5.987, "-5.99"],
      [2.1465760234481914, "2.15"],
      [3.3, "3.3"],
      [0, "0"],
      [Number.NaN, "-"],
      [undefined, "-"],
    ];
    for (const [value, text] of cases) expect(significant(value), String(value)).toBe(text);
  });
});
