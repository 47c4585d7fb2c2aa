import { describe, expect, it } from "vitest";
import { mergedProfileFiles, readStoredProfiles, storedProfileSet } from "./stored-profiles.js";

const entry = (component: string, nodeType: number, min: number, max: number) => ({
  energySource: "acpi",
  component,
  nodeType,
  minWatts: min,
  maxWatts: max,
  unitCount: 1,
});

describe("stored idle profiles", () => {
  it("writes the reference's profile/<source>.json and merges node types across runs", () => {
    const first = mergedProfileFiles(
      [],
      { profiles: [entry("platform", 0, 100, 120)], backgroundContainerNames: ["kubelet"] },
      0,
    );
    expect(first.map((file) => file.path)).toEqual(["profile/acpi.json", "profile/background_containers.json"]);
    expect(JSON.parse(first[0]!.text)).toEqual({ platform: { "0": { min_watt: 100, max_watt: 120, "#unit": 1 } } });
    // A second node type is added; a new profile of node type 0 replaces the old one.
    const second = mergedProfileFiles(first, { profiles: [entry("platform", 2, 50, 60)], backgroundContainerNames: ["sshd"] }, 2);
    const third = mergedProfileFiles(second, { profiles: [entry("platform", 0, 90, 110)], backgroundContainerNames: [] }, 0);
    expect(JSON.parse(third[0]!.text)).toEqual({
      platform: { "0": { min_watt: 90, max_watt: 110, "#unit": 1 }, "2": { min_watt: 50, max_watt: 60, "#unit": 1 } },
    });
    expect(JSON.parse(third[1]!.text)).toEqual({ "0": [], "2": ["sshd"] });
    expect(readStoredProfiles(third).profiles).toHaveLength(2);
    expect(storedProfileSet(third)).toEqual({
      profiles: [entry("platform", 0, 90, 110), entry("platform", 2, 50, 60)],
      backgroundContainerNames: ["sshd"],
    });
  });

  it("reads the reference's own files (no background file) and skips what it cannot read", () => {
    const files = [
      {
        path: "profile/rapl-sysfs.json",
        text: '{"package": {"0": {"min_watt": 0.0, "max_watt": 11.389, "#unit": 1}}, "core": "x"}',
      },
      { path: "profile/broken.json", text: "{" },
    ];
    expect(storedProfileSet(files)).toEqual({
      profiles: [{ energySource: "rapl-sysfs", component: "package", nodeType: 0, minWatts: 0, maxWatts: 11.389, unitCount: 1 }],
      backgroundContainerNames: [],
    });
    expect(storedProfileSet([])).toBeUndefined();
  });
});
