// Vitest global setup: when the run includes the image build test, its image (several minutes of
// mmdebstrap, npm ci and podman build, mostly waiting on the network and the disk) is built in the
// background, at the lowest CPU priority, while the other test files run in the worker. The test waits
// for it (test/support/image-build.ts); the teardown stops an unfinished build and removes the folder.
import type { TestProject } from "vitest/node";
import {
  buildImageInBackground,
  createImageFolder,
  IMAGE_BUILD_TEST,
  imageBuildRuns,
  removeAbandonedImageFolders,
  removeImageFolder,
} from "./image-build.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The folder whose podman storage gets the image, built in the background (image-build.test.ts). */
    imageBuildFolder: string | undefined;
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  project.provide("imageBuildFolder", undefined);
  // The run's test files (the state API is marked experimental; without it the test builds in the foreground).
  const files = project.vitest.state?.getPaths?.() ?? [];
  if (!imageBuildRuns || !files.some((file) => file.endsWith(IMAGE_BUILD_TEST))) return undefined;
  const folder = await createImageFolder();
  const stop = new AbortController();
  // Folders left by killed runs go first: they can hold gigabytes.
  const build = removeAbandonedImageFolders()
    .catch(() => undefined)
    .then(() => buildImageInBackground(folder, stop.signal));
  project.provide("imageBuildFolder", folder);
  return async () => {
    stop.abort();
    // A killed build's grandchildren can hold its output open: wait a minute at most.
    await Promise.race([build, new Promise((resolve) => setTimeout(resolve, 60_000).unref())]);
    await removeImageFolder(folder);
  };
}
