// The price of admission on the direct Estimate path: the call pipeline's start and succeed for one
// Estimate-shaped call (a GrpcJsInboundCall, open access, no metrics or tracing) with and without the
// admission step, ns per call and bytes allocated per call (heap growth over a run with no GC between).
// Calls run in batches of TURN, one batch per event-loop turn: admission holds a unary call's slot to the
// end of the turn it ends in, so one synchronous loop of 300,000 calls would fill the priority pool.
import { createAdmissionPolicy } from "../../services/kit/calls/admission.js";
import { createCallPipeline } from "../../services/kit/calls/create-call-pipeline.js";
import { DEFAULT_OVERLOAD } from "../../services/kit/config/overload-config.js";
import { silentLogger } from "../../services/kit/observe/logger.js";
import { GrpcJsInboundCall } from "../../services/kit/transport/grpc-inbound-call.js";
import { printTable } from "../support/measure.js";

const PATH = "/kepler.model.v1.EstimatorService/Estimate";
const CALLS = 300_000;
const TURN = 500;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
const fakeCall = { metadata: { get: () => [] }, getPeer: () => "ipv4:127.0.0.1:5000" } as never;

async function run(withAdmission: boolean): Promise<{ nsPerCall: number }> {
  const pipeline = createCallPipeline({
    service: "bench",
    logger: silentLogger(),
    admission: withAdmission ? createAdmissionPolicy(DEFAULT_OVERLOAD) : undefined,
  });
  const start = process.hrtime.bigint();
  for (let done = 0; done < CALLS; done += TURN) {
    for (let i = 0; i < TURN; i++) {
      const call = new GrpcJsInboundCall(PATH, "open", fakeCall);
      pipeline.start(call);
      pipeline.succeed(call);
    }
    await nextTurn();
  }
  return { nsPerCall: Number(process.hrtime.bigint() - start) / CALLS };
}

// The policy alone: admit and release of one priority call, and the heap's growth per call.
async function policyOnly(): Promise<{ nsPerCall: number; bytesPerCall: number }> {
  const policy = createAdmissionPolicy(DEFAULT_OVERLOAD);
  const call = new GrpcJsInboundCall(PATH, "open", fakeCall);
  const calls = async () => {
    for (let done = 0; done < CALLS; done += TURN) {
      for (let i = 0; i < TURN; i++) {
        policy.admit(call);
        policy.release(call);
      }
      await nextTurn();
    }
  };
  await calls();
  const heapBefore = process.memoryUsage().heapUsed;
  const start = process.hrtime.bigint();
  await calls();
  const nsPerCall = Number(process.hrtime.bigint() - start) / CALLS;
  return { nsPerCall, bytesPerCall: (process.memoryUsage().heapUsed - heapBefore) / CALLS };
}

/** Prints the median of 5 interleaved runs each way. */
export async function admissionCost(): Promise<void> {
  const without: number[] = [];
  const withIt: number[] = [];
  await run(false);
  await run(true);
  for (let round = 0; round < 5; round++) {
    without.push((await run(false)).nsPerCall);
    withIt.push((await run(true)).nsPerCall);
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[2]!;
  printTable(
    `Call pipeline start + succeed of an Estimate call, ${CALLS} calls (${TURN} per turn), median of 5 rounds`,
    ["pipeline", "ns/call"],
    [
      ["without admission", median(without).toFixed(1)],
      ["with admission (priority pool)", median(withIt).toFixed(1)],
      ["difference", (median(withIt) - median(without)).toFixed(1)],
    ],
  );
  const alone = await policyOnly();
  printTable(
    "The admission policy alone (admit + release of a priority call)",
    ["ns/call", "heap bytes/call"],
    [[alone.nsPerCall.toFixed(1), alone.bytesPerCall.toFixed(3)]],
  );
}
