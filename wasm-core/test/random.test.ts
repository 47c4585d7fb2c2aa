import { describe, expect, it } from "vitest";
import { permutation } from "../src/index.js";
import { goldens } from "./trainer-goldens.js";

describe("permutation (MT19937, numpy legacy seeding)", () => {
  it("equals numpy.random.RandomState(seed).permutation(n)", () => {
    expect(Array.from(permutation(10, 0))).toEqual(goldens.permutation.seed0_n10);
    expect(Array.from(permutation(187, 42))).toEqual(goldens.permutation.seed42_n187);
    expect(Array.from(permutation(5, 4294967295))).toEqual(goldens.permutation.seed4294967295_n5);
  });

  it("gives sklearn train_test_split(test_size=0.1, random_state=seed) test rows at its front", () => {
    const order = Array.from(permutation(40, 7));
    const nTest = Math.ceil(0.1 * 40);
    expect(order.slice(0, nTest)).toEqual(goldens.train_test_split_n40_seed7.test);
    expect(order.slice(nTest)).toEqual(goldens.train_test_split_n40_seed7.train);
  });

  it("is a permutation and reproducible", () => {
    const a = permutation(1000, 123);
    expect(Array.from(a).sort((x, y) => x - y)).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    expect(Array.from(permutation(1000, 123))).toEqual(Array.from(a));
    expect(Array.from(permutation(1000, 124))).not.toEqual(Array.from(a));
  });

  it("handles n = 0 and 1 and refuses bad seeds", () => {
    expect(permutation(0, 1).length).toBe(0);
    expect(Array.from(permutation(1, 1))).toEqual([0]);
    expect(() => permutation(3, -1)).toThrow("permutation: seed must be an integer in [0, 2^32), got -1");
    expect(() => permutation(3, 2 ** 32)).toThrow("permutation: seed must be an integer in [0, 2^32)");
  });
});
