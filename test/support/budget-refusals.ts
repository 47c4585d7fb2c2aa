// How tests see the upload budget's refusals (services/kit/calls/upload-budget.ts): RESOURCE_EXHAUSTED with
// a 5 s RetryInfo while other uploads hold the budget, without one for more than the whole budget.
import { ClientError, Status, createClientFactory } from "nice-grpc";
import { RetryInfo, RichClientError, errorDetailsClientMiddleware } from "nice-grpc-error-details";
import { expect } from "vitest";

/** Clients that decode google.rpc error details (RetryInfo). */
export const budgetClientFactory = createClientFactory().use(errorDetailsClientMiddleware);

/** The ClientError `call` fails with (fails the test if it succeeds). */
export async function refusal(call: Promise<unknown>): Promise<ClientError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ClientError);
  return error as ClientError;
}

// Refused while other uploads hold the budget: RESOURCE_EXHAUSTED with a 5 s RetryInfo.
export function expectBudgetBusy(error: ClientError): void {
  expect(Status[error.code]).toBe("RESOURCE_EXHAUSTED");
  expect(error.details).toMatch(/are free \(upload-budget-bytes\); retry later$/);
  expect(error).toBeInstanceOf(RichClientError);
  expect((error as InstanceType<typeof RichClientError>).extra).toEqual([
    RetryInfo.fromPartial({ retryDelay: { seconds: 5, nanos: 0 } }),
  ]);
}

// Larger than the whole budget (the 1 MiB the server tests set): RESOURCE_EXHAUSTED with no retry hint (a
// retry would be refused again).
export function expectNeverFits(error: ClientError): void {
  expect(Status[error.code]).toBe("RESOURCE_EXHAUSTED");
  expect(error.details).toMatch(/more than the whole upload budget of 1048576 \(upload-budget-bytes\)$/);
  expect((error as Partial<InstanceType<typeof RichClientError>>).extra ?? []).toEqual([]);
}
