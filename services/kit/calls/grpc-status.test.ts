import { ServerError, Status } from "nice-grpc";
import { describe, expect, it } from "vitest";
import { MAX_STATUS_MESSAGE_CHARS, boundedStatus } from "./grpc-status.js";

describe("boundedStatus", () => {
  it("keeps a short well-formed message as it is", () => {
    const error = new ServerError(Status.INVALID_ARGUMENT, "name: bad \u{1F600} value");
    expect(boundedStatus(error)).toBe(error);
  });

  it("replaces lone surrogates (grpc-js's encodeURI would throw and the call would get no status)", () => {
    const bounded = boundedStatus(new ServerError(Status.INVALID_ARGUMENT, "path: \uD800x and \uDC00 end"));
    expect(bounded.code).toBe(Status.INVALID_ARGUMENT);
    expect(bounded.details).toBe("path: \uFFFDx and \uFFFD end");
    expect(() => encodeURI(bounded.details)).not.toThrow();
  });

  it("cuts a long message with a note, never through a surrogate pair", () => {
    const details = "\u{1F600}".repeat(MAX_STATUS_MESSAGE_CHARS);
    const bounded = boundedStatus(new ServerError(Status.NOT_FOUND, details));
    expect(bounded.details.length).toBeLessThanOrEqual(MAX_STATUS_MESSAGE_CHARS);
    expect(bounded.details.endsWith(` ... [cut: ${details.length} characters]`)).toBe(true);
    expect(() => encodeURI(bounded.details)).not.toThrow();
  });
});
