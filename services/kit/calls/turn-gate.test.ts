// The turn gate: at most perTurn starts per event-loop turn, the rest in arrival order in later turns.
import { describe, expect, it } from "vitest";
import { createTurnGate } from "./turn-gate.js";

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("turn gate", () => {
  it("starts perTurn at once and the rest of a burst a turn at a time, in arrival order", async () => {
    const gate = createTurnGate(2);
    const started: Array<[number, number]> = [];
    let turn = 0;
    for (let i = 0; i < 5; i++) {
      const waiting = gate.pass();
      if (waiting === undefined) started.push([i, turn]);
      else void waiting.then(() => started.push([i, turn]));
    }
    expect(started).toEqual([
      [0, 0],
      [1, 0],
    ]);
    for (turn = 1; turn <= 3; turn++) await nextTurn();
    expect(started).toEqual([
      [0, 0],
      [1, 0],
      [2, 1],
      [3, 1],
      [4, 2],
    ]);
    // The burst is over: a newcomer starts at once again.
    await nextTurn();
    expect(gate.pass()).toBeUndefined();
  });

  it("lets work start at once past maxWaiting (a memory bound; admission then decides)", () => {
    const gate = createTurnGate(1, 2);
    expect([gate.pass(), gate.pass(), gate.pass(), gate.pass()].map((w) => (w === undefined ? "now" : "waits"))).toEqual([
      "now",
      "waits",
      "waits",
      "now",
    ]);
  });
});
