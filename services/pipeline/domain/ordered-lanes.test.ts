import { describe, expect, it } from "vitest";
import { createOrderedLanes, runWindowed } from "./ordered-lanes.js";

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("createOrderedLanes", () => {
  it("replays later lanes' effects after the earlier lanes finish, in lane order", () => {
    const seen: string[] = [];
    const lanes = createOrderedLanes(3);
    lanes.report(2, () => seen.push("c1"));
    lanes.report(1, () => seen.push("b1"));
    lanes.report(0, () => seen.push("a1"));
    lanes.report(2, () => seen.push("c2"));
    expect(seen).toEqual(["a1"]);
    lanes.finish(2);
    expect(seen).toEqual(["a1"]);
    lanes.report(0, () => seen.push("a2"));
    lanes.finish(0);
    expect(seen).toEqual(["a1", "a2", "b1"]);
    lanes.report(1, () => seen.push("b2"));
    lanes.finish(1);
    expect(seen).toEqual(["a1", "a2", "b1", "b2", "c1", "c2"]);
  });
});

describe("runWindowed", () => {
  it("never has more than `width` jobs running and runs them all", async () => {
    let running = 0;
    let most = 0;
    const done: number[] = [];
    const jobs = Array.from({ length: 7 }, (_, index) => async () => {
      running++;
      most = Math.max(most, running);
      for (let step = 0; step < 7 - index; step++) await tick();
      running--;
      done.push(index);
    });
    await runWindowed(jobs, 3);
    expect(most).toBe(3);
    expect([...done].sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it("rejects with the earliest failure after every started job settled", async () => {
    const settled: number[] = [];
    const jobs = [0, 1, 2].map((index) => async () => {
      await tick();
      settled.push(index);
      if (index > 0) throw new Error(`job ${index}`);
    });
    await expect(runWindowed(jobs, 3)).rejects.toThrow("job 1");
    expect([...settled].sort()).toEqual([0, 1, 2]);
  });
});
