// Admission's pools over event-loop turns: a unary call's slot is held to the end of the turn it ends
// in, so a burst answered within one turn is queued or refused past the limit (admission.ts).
import { describe, expect, it } from "vitest";
import { AdmissionRefused, createAdmissionPolicy } from "./admission.js";
import { InboundCall, type Transport } from "./inbound-call.js";

class TestCall extends InboundCall {
  constructor(
    transport: Transport,
    label: string,
    streaming = false,
    private readonly address = "10.0.0.7:5000",
  ) {
    super(transport, label, label, "open");
    this.streaming = streaming;
  }
  header(): undefined {
    return undefined;
  }
  headerNames(): string[] {
    return [];
  }
  peer(): string {
    return this.address;
  }
}

const LIMITS = {
  maxCalls: 2,
  maxCallsPerClient: 2,
  maxQueuedCalls: 1,
  queueWaitMs: 5_000,
  maxStreams: 2,
  maxStreamsPerClient: 0,
  maxPriorityCalls: 2,
  maxPriorityStreams: 0,
};
const LIST = "/kepler.model.v1.RegistryService/ListModels";
const ESTIMATE = "/kepler.model.v1.EstimatorService/Estimate";
const ESTIMATE_STREAM = "/kepler.model.v1.EstimatorService/EstimateStream";
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Admits and at once releases a call (one answered within the turn); what admit did. */
function answerAtOnce(policy: ReturnType<typeof createAdmissionPolicy>, call: InboundCall): "ran" | "queued" | "refused" {
  try {
    const waiting = policy.admit(call);
    if (waiting !== undefined) {
      waiting.catch(() => undefined);
      return "queued";
    }
  } catch (error) {
    if (error instanceof AdmissionRefused) return "refused";
    throw error;
  }
  policy.release(call);
  return "ran";
}

describe("admission over event-loop turns", () => {
  it("holds a finished unary call's slot to the end of its turn: a burst past max-calls queues, then is refused", async () => {
    const policy = createAdmissionPolicy(LIMITS);
    const burst = Array.from({ length: 5 }, () => new TestCall("http", "GET /best-models"));
    expect(burst.map((call) => answerAtOnce(policy, call))).toEqual(["ran", "ran", "queued", "refused", "refused"]);
    expect(policy.load).toEqual({ priority: 0, streams: 0, calls: 2, queued: 1 });
    await nextTurn();
    // The turn ended: its two slots came back and the queued call holds one.
    expect(policy.load).toEqual({ priority: 0, streams: 0, calls: 1, queued: 0 });
    policy.release(burst[2]!);
    await nextTurn();
    expect(policy.load).toEqual({ priority: 0, streams: 0, calls: 0, queued: 0 });
    expect(answerAtOnce(policy, new TestCall("grpc", LIST))).toBe("ran");
  });

  it("counts priority unary calls (Estimate, the socket) per turn too, but gives a stream's slot back at once", async () => {
    const policy = createAdmissionPolicy(LIMITS);
    expect(
      [new TestCall("grpc", ESTIMATE), new TestCall("socket", "socket"), new TestCall("grpc", ESTIMATE)].map((call) =>
        answerAtOnce(policy, call),
      ),
    ).toEqual(["ran", "ran", "refused"]);
    await nextTurn();
    expect(policy.load.priority).toBe(0);
    const stream = new TestCall("grpc", "/kepler.model.v1.RegistryService/WatchModels", true);
    for (let i = 0; i < 4; i++) expect(answerAtOnce(policy, stream)).toBe("ran");
    expect(policy.load.streams).toBe(0);
  });

  it("gives a client's own count back at once: one client's burst is bounded by the pool, not refused as that client", async () => {
    const policy = createAdmissionPolicy({ ...LIMITS, maxCalls: 4, maxQueuedCalls: 0, maxCallsPerClient: 1 });
    const outcomes = Array.from({ length: 4 }, () => answerAtOnce(policy, new TestCall("grpc", LIST)));
    expect(outcomes).toEqual(["ran", "ran", "ran", "ran"]);
    await nextTurn();
    expect(policy.load.calls).toBe(0);
  });

  it("lets streams hold only their share of the priority slots (half by default), so unary Estimate still gets in", async () => {
    const policy = createAdmissionPolicy({ ...LIMITS, maxPriorityCalls: 4 });
    const open = (): string => {
      try {
        policy.admit(new TestCall("grpc", ESTIMATE_STREAM, true));
        return "open";
      } catch (error) {
        if (error instanceof AdmissionRefused) return error.message;
        throw error;
      }
    };
    expect([open(), open(), open()]).toEqual(["open", "open", "server busy: 2 estimate streams open; retry later"]);
    expect(answerAtOnce(policy, new TestCall("grpc", ESTIMATE))).toBe("ran");
    expect(answerAtOnce(policy, new TestCall("socket", "socket"))).toBe("ran");
    await nextTurn();
    const all = createAdmissionPolicy({ ...LIMITS, maxPriorityCalls: 4, maxPriorityStreams: 4 });
    for (let i = 0; i < 4; i++) all.admit(new TestCall("grpc", ESTIMATE_STREAM, true));
    expect(answerAtOnce(all, new TestCall("grpc", ESTIMATE))).toBe("refused");
  });

  it("says whether it would refuse a call exactly when admit would, and takes nothing by saying so", async () => {
    const policy = createAdmissionPolicy({ ...LIMITS, maxCallsPerClient: 0, maxStreamsPerClient: 1 });
    const kinds = [
      () => new TestCall("grpc", LIST),
      () => new TestCall("grpc", ESTIMATE),
      () => new TestCall("grpc", ESTIMATE_STREAM, true),
      () => new TestCall("grpc", "/kepler.model.v1.RegistryService/WatchModels", true),
      () => new TestCall("grpc", "/kepler.model.v1.RegistryService/WatchModels", true, "10.0.0.8:5000"),
      () => new TestCall("socket", "socket"),
    ];
    // Calls that stay admitted (never released) until every pool is full; each prediction is checked
    // against what admit then does, and the load is unchanged by the prediction alone.
    for (let round = 0; round < 4; round++) {
      for (const make of kinds) {
        const call = make();
        const before = { ...policy.load };
        const predicted = policy.wouldRefuse(call);
        expect(policy.load).toEqual(before);
        let refused = false;
        try {
          const waiting = policy.admit(call);
          waiting?.catch(() => undefined);
        } catch (error) {
          expect(error).toBeInstanceOf(AdmissionRefused);
          refused = true;
        }
        expect([round, call.label, call.peer(), predicted]).toEqual([round, call.label, call.peer(), refused]);
      }
    }
    // 10.0.0.7's one stream is its EstimateStream, so only 10.0.0.8's WatchModels holds a stream slot.
    expect(policy.load).toEqual({ priority: 2, streams: 1, calls: 2, queued: 1 });
  });
});
