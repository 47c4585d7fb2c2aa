// The feature vocabulary: the reference's groups keep their exact lists and valid-group answer; the
// extra groups (IRQOnly, CgroupOnly, KubeletOnly) have their own lists and are answered apart.
import { describe, expect, it } from "vitest";
import {
  FEATURE_GROUP_NAMES,
  assertFeatureGroup,
  featureGroupOf,
  featuresOf,
  mainFeatureIndex,
  validExtraFeatureGroups,
  validGuestFeatureGroups,
  validFeatureGroups,
} from "./feature-groups.js";

const COLLECTOR = ["cpu_cycles", "cpu_instructions", "cache_miss", "bpf_cpu_time_ms", "bpf_page_cache_hit"];
const IRQ = ["bpf_block_irq", "bpf_net_rx_irq", "bpf_net_tx_irq"];

describe("feature groups", () => {
  it("gives IRQOnly the IRQ features and keeps the removed groups' lists, sorted", () => {
    expect(featuresOf("IRQOnly")).toEqual(IRQ);
    expect(featuresOf("CgroupOnly")).toEqual([
      "cgroupfs_cpu_usage_us",
      "cgroupfs_memory_usage_bytes",
      "cgroupfs_system_cpu_usage_us",
      "cgroupfs_user_cpu_usage_us",
    ]);
    expect(featuresOf("KubeletOnly")).toEqual(["kubelet_cpu_usage", "kubelet_memory_bytes"]);
    expect(featureGroupOf(["bpf_net_tx_irq", "bpf_block_irq", "bpf_net_rx_irq"])).toBe("IRQOnly");
    expect(featureGroupOf(["kubelet_memory_bytes", "kubelet_cpu_usage"])).toBe("KubeletOnly");
    expect(featureGroupOf(["accelerator_intel_qat"])).toBe("AcceleratorOnly");
  });

  it("answers the reference's valid groups unchanged and the extra ones apart", () => {
    const available = [...COLLECTOR, ...IRQ];
    expect(validFeatureGroups(available)).toEqual(["CounterOnly", "BPFOnly", "BPFIRQ", "CounterIRQCombined", "Basic"]);
    expect(validExtraFeatureGroups(available)).toEqual(["IRQOnly"]);
    expect(validExtraFeatureGroups(["kubelet_cpu_usage"])).toEqual([]);
    expect(FEATURE_GROUP_NAMES.slice(-5)).toEqual(["IRQOnly", "CgroupOnly", "KubeletOnly", "GuestOSOnly", "GuestOSPerf"]);
    // The VM groups come from the guest, never from a Kepler recording.
    expect(validGuestFeatureGroups(available)).toEqual([]);
    expect(validGuestFeatureGroups([...featuresOf("GuestOSPerf")])).toEqual(["GuestOSOnly", "GuestOSPerf"]);
  });

  it("accepts every group by name and names the field for an unknown one", () => {
    for (const name of FEATURE_GROUP_NAMES) expect(assertFeatureGroup(name)).toBe(name);
    expect(() => assertFeatureGroup("Cgroup", "options.feature_groups[0]")).toThrow(
      /^options\.feature_groups\[0\]: unknown feature group "Cgroup" \(known: Full, .*, IRQOnly, CgroupOnly, KubeletOnly, GuestOSOnly, GuestOSPerf\)$/,
    );
  });

  it("main feature of the extra groups: CPU usage, memory for dram, received packets for IRQOnly", () => {
    expect(featuresOf("CgroupOnly")[mainFeatureIndex("CgroupOnly", "package")]).toBe("cgroupfs_cpu_usage_us");
    expect(featuresOf("CgroupOnly")[mainFeatureIndex("CgroupOnly", "dram")]).toBe("cgroupfs_memory_usage_bytes");
    expect(featuresOf("KubeletOnly")[mainFeatureIndex("KubeletOnly", "package")]).toBe("kubelet_cpu_usage");
    expect(featuresOf("KubeletOnly")[mainFeatureIndex("KubeletOnly", "dram")]).toBe("kubelet_memory_bytes");
    expect(featuresOf("IRQOnly")[mainFeatureIndex("IRQOnly", "dram")]).toBe("bpf_net_rx_irq");
  });
});
