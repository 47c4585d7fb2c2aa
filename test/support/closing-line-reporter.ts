import type { Reporter, TestCase, TestModule } from "vitest/node";
import "./system-tools.js"; // the TaskMeta.skipReason type

/**
 * Prints the plain closing line CI reads: `vitest: P passed, F failed, S skipped`, after the skipped
 * tests grouped by their reason. A test file that fails to import counts as one failure, and a test whose
 * suite's hook failed counts as failed, so a broken file cannot pass silently. Under CI=true (.ci/run
 * installs every tool the tests use) a skipped test counts as failed and the run exits non-zero.
 */
export default class ClosingLineReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    const skipped = new Map<string, string[]>();
    for (const testModule of testModules) {
      let tests = 0;
      for (const test of testModule.children.allTests()) {
        tests++;
        const result = test.result();
        if (result.state === "passed") passed++;
        else if (result.state === "failed" || inFailedSuite(test)) failed++;
        else {
          const reason = (result.state === "skipped" ? result.note : undefined) ?? test.meta().skipReason ?? "no reason given";
          skipped.set(reason, [...(skipped.get(reason) ?? []), testName(test)]);
        }
      }
      if (tests === 0 && testModule.state() === "failed") failed++;
      else if (testModule.errors().length > 0) failed++;
    }
    const skippedCount = [...skipped.values()].reduce((sum, names) => sum + names.length, 0);
    const ci = process.env.CI === "true";
    let text = "";
    if (skippedCount > 0) {
      text += `\n${skippedCount} skipped test(s)${ci ? ", counted as failed under CI=true (.ci/run installs every tool)" : ""}:\n`;
      for (const [reason, names] of skipped) text += `  ${reason}:\n${names.map((name) => `    ${name}\n`).join("")}`;
    }
    if (ci && skippedCount > 0) {
      failed += skippedCount;
      process.exitCode = 1;
    }
    process.stdout.write(`${text}\nvitest: ${passed} passed, ${failed} failed, ${ci ? 0 : skippedCount} skipped\n`);
  }
}

/** Whether a hook of a suite around the test failed (vitest then marks the test skipped, not failed). */
function inFailedSuite(test: TestCase): boolean {
  for (let parent = test.parent; parent.type === "suite"; parent = parent.parent) if (parent.state() === "failed") return true;
  return false;
}

/** `file > suite > test`, with the file relative to the project. */
function testName(test: TestCase): string {
  return `${test.module.relativeModuleId} > ${test.fullName}`;
}
