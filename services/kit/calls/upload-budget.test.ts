// Domain tests of the upload budget: reservations grow with their upload, are refused with AdmissionRefused
// (retry hint) when the budget lacks room, and give their bytes back once; uploads racing by running size
// leave one that fits to finish.
import { ServerError, Status } from "nice-grpc";
import { describe, expect, it } from "vitest";
import { AdmissionRefused } from "./admission-refused.js";
import { UPLOAD_RETRY_AFTER_MS, UploadBudget, processUploadBudget } from "./upload-budget.js";

describe("UploadBudget", () => {
  it("grows a reservation to the bytes asked, never lowers it, and releases it once", () => {
    const budget = new UploadBudget(100);
    const a = budget.reserve("a");
    a.grow(40);
    a.grow(30);
    expect(a.heldBytes).toBe(40);
    expect(budget.inFlightBytes).toBe(40);
    a.release();
    a.release();
    a.grow(10);
    expect(budget.inFlightBytes).toBe(0);
  });

  it("refuses a growth past the capacity with AdmissionRefused naming the free bytes, keeping what was held", () => {
    const budget = new UploadBudget(100);
    budget.reserve("a").grow(70);
    const b = budget.reserve("b");
    b.grow(20);
    let refused: unknown;
    try {
      b.grow(31);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(AdmissionRefused);
    expect((refused as AdmissionRefused).message).toBe(
      "server busy: b needs 31 bytes of the upload budget, 30 of 100 are free (upload-budget-bytes); retry later",
    );
    expect((refused as AdmissionRefused).retryAfterMs).toBe(UPLOAD_RETRY_AFTER_MS);
    expect(b.heldBytes).toBe(20);
    expect(budget.inFlightBytes).toBe(90);
    b.grow(30);
    expect(budget.inFlightBytes).toBe(100);
  });

  it("refuses more than the whole budget without a retry hint: a retry would be refused again", () => {
    const budget = new UploadBudget(100);
    const a = budget.reserve("a");
    let refused: unknown;
    try {
      a.grow(101);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ServerError);
    expect(refused).not.toBeInstanceOf(AdmissionRefused);
    expect((refused as ServerError).code).toBe(Status.RESOURCE_EXHAUSTED);
    expect((refused as ServerError).details).toBe(
      "a needs 101 bytes, more than the whole upload budget of 100 (upload-budget-bytes)",
    );
    expect(budget.inFlightBytes).toBe(0);
  });

  it("six 250-byte uploads racing by running size in a 256-byte budget: the refused give back, one finishes", () => {
    const budget = new UploadBudget(256);
    const uploads = Array.from({ length: 6 }, (_, i) => ({ reservation: budget.reserve(`u${i}`), sent: 0, state: "running" }));
    while (uploads.some((u) => u.state === "running")) {
      for (const upload of uploads.filter((u) => u.state === "running")) {
        upload.sent += 10;
        try {
          upload.reservation.grow(upload.sent);
        } catch {
          upload.reservation.release();
          upload.state = "refused";
          continue;
        }
        if (upload.sent === 250) {
          upload.reservation.release();
          upload.state = "done";
        }
      }
    }
    expect(uploads.filter((u) => u.state === "done").length).toBeGreaterThanOrEqual(1);
    expect(uploads.filter((u) => u.state === "refused").length).toBeGreaterThanOrEqual(1);
    expect(budget.inFlightBytes).toBe(0);
  });

  it("is one per process for a given capacity", () => {
    expect(processUploadBudget(1234)).toBe(processUploadBudget(1234));
    expect(processUploadBudget(1235).capacityBytes).toBe(1235);
  });
});
