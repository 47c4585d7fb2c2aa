import type { Reporter, TestModule } from "vitest/node";

/**
 * Prints the plain closing line CI reads: `vitest: P passed, F failed, S skipped`.
 * A test file that fails to import counts as one failure, so a broken file cannot pass silently.
 */
export default class ClosingLineReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const testModule of testModules) {
      let tests = 0;
      for (const test of testModule.children.allTests()) {
        tests++;
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
        else skipped++;
      }
      if (tests === 0 && testModule.state() === "failed") failed++;
      else if (testModule.errors().length > 0) failed++;
    }
    process.stdout.write(`\nvitest: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
