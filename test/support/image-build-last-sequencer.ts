import { BaseSequencer, type TestSpecification } from "vitest/node";
import { IMAGE_BUILD_TEST } from "./image-build.js";

/**
 * Vitest's order (failed first, then longest, or largest when nothing is cached), with the image build
 * test last: its image builds in the background from the start of the run (image-build-setup.ts), so by
 * the time the other files are done it is ready, instead of the worker waiting for it.
 */
export class ImageBuildLastSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const isImageBuild = (file: TestSpecification) => file.moduleId.endsWith(IMAGE_BUILD_TEST);
    return [...sorted.filter((file) => !isImageBuild(file)), ...sorted.filter(isImageBuild)];
  }
}
