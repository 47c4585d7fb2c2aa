// Command probe reads a sysfs tree with Kepler v0.11.4's own CPU power meters (internal/device, compiled
// unchanged), built as Kepler's createCPUMeter (cmd/kepler/main.go) builds them, and turns consecutive
// reads into watts with Kepler's rule (internal/monitor/node.go: calculateNodePower, firstNodeRead and
// calculateEnergyDelta, whose facts are restated below). The test drives it over stdin:
//
//	read <seconds>   one read of every zone at that time (Kepler's monitor takes its timestamps from an
//	                 injectable clock; the test passes the writer's clock) -> one JSON line
//	hammer <reads> <maxWatts>
//	                 reads every zone that many times as fast as it can and counts failed reads,
//	                 decreases that are not a wrap and power readings outside 0..maxWatts -> one JSON line
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"log/slog"

	"github.com/sustainable-computing-io/kepler/internal/device"
)

type zoneInfo struct {
	Name        string `json:"name"`
	Index       int    `json:"index"`
	Path        string `json:"path"`
	MaxEnergyUj uint64 `json:"maxEnergyUj"`
}

type zoneRead struct {
	Name     string   `json:"name"`
	EnergyUj uint64   `json:"energyUj"`
	PowerUw  float64  `json:"powerUw"`
	Wrapped  bool     `json:"wrapped"`
	Watts    *float64 `json:"watts"`
	Error    string   `json:"error,omitempty"`
}

type previous struct {
	energyTotal device.Energy
	seconds     float64
}

// createCPUMeter: the same constructors and options as Kepler's cmd/kepler/main.go, with the config's
// values as flags (experimental.hwmon.enabled selects hwmon, otherwise RAPL; zone filters; no chip rules).
func createCPUMeter(meter, sysfs string, zones []string) (device.CPUPowerMeter, func() error, error) {
	logger := slog.Default()
	if meter == "hwmon" {
		m, err := device.NewHwmonPowerMeter(sysfs,
			device.WithHwmonLogger(logger),
			device.WithHwmonZoneFilter(zones),
			device.WithHwmonChipRules(nil))
		if err != nil {
			return nil, nil, err
		}
		return m, m.Init, nil
	}
	m, err := device.NewCPUPowerMeter(sysfs, device.WithRaplLogger(logger), device.WithZoneFilter(zones))
	if err != nil {
		return nil, nil, err
	}
	return m, m.Init, nil
}

// calculateEnergyDelta: node.go's rule. A current value below the previous one is a wrap at exactly
// MaxEnergy (when known); otherwise the delta is the difference.
func calculateEnergyDelta(current, prev, max device.Energy) device.Energy {
	if current >= prev {
		return current - prev
	}
	if max > 0 {
		return (max - prev) + current
	}
	return 0
}

func emit(v any) {
	out, _ := json.Marshal(v)
	fmt.Println(string(out))
}

func main() {
	meter := flag.String("meter", "rapl", "rapl or hwmon")
	sysfs := flag.String("sysfs", "/sys", "Kepler's host.sysfs")
	zoneList := flag.String("zones", "", "zone filter (rapl.zones or experimental.hwmon.zones), comma separated")
	flag.Parse()
	var filter []string
	if *zoneList != "" {
		filter = strings.Split(*zoneList, ",")
	}
	cpu, initMeter, err := createCPUMeter(*meter, *sysfs, filter)
	if err == nil {
		err = initMeter()
	}
	if err != nil {
		emit(map[string]string{"initError": err.Error()})
		return
	}
	zones, err := cpu.Zones()
	if err != nil {
		emit(map[string]string{"initError": err.Error()})
		return
	}
	sort.Slice(zones, func(i, j int) bool { return zones[i].Name() < zones[j].Name() })
	infos := make([]zoneInfo, 0, len(zones))
	for _, z := range zones {
		infos = append(infos, zoneInfo{z.Name(), z.Index(), z.Path(), uint64(z.MaxEnergy())})
	}
	primary, _ := cpu.PrimaryEnergyZone()
	emit(map[string]any{"meter": cpu.Name(), "zones": infos, "primary": primary.Name()})

	prev := map[string]previous{}
	scanner := bufio.NewScanner(os.Stdin)
	for scanner.Scan() {
		fields := strings.Fields(scanner.Text())
		if len(fields) == 0 {
			continue
		}
		switch fields[0] {
		case "read":
			seconds, _ := strconv.ParseFloat(fields[1], 64)
			emit(readOnce(zones, prev, seconds))
		case "hammer":
			reads, _ := strconv.Atoi(fields[1])
			maxWatts, _ := strconv.ParseFloat(fields[2], 64)
			emit(hammer(zones, reads, maxWatts))
		}
	}
}

// readOnce: one sample of calculateNodePower. An energy zone (MaxEnergy > 0 or a non-zero reading) gives
// delta / elapsed; a power zone gives its reading. A zone that fails is left out of the sample, so its next
// read is a first read again (Kepler's `continue` before storing the zone).
func readOnce(zones []device.EnergyZone, prev map[string]previous, seconds float64) []zoneRead {
	reads := make([]zoneRead, 0, len(zones))
	for _, z := range zones {
		energy, energyErr := z.Energy()
		power, powerErr := z.Power()
		isEnergySensor := z.MaxEnergy() > 0 || energy > 0
		r := zoneRead{Name: z.Name(), EnergyUj: uint64(energy), PowerUw: float64(power)}
		readErr := powerErr
		if isEnergySensor {
			readErr = energyErr
		}
		if readErr != nil {
			r.Error = readErr.Error()
			delete(prev, z.Name())
			reads = append(reads, r)
			continue
		}
		last, seen := prev[z.Name()]
		if seen {
			var watts float64
			if isEnergySensor {
				delta := calculateEnergyDelta(energy, last.energyTotal, z.MaxEnergy())
				r.Wrapped = energy < last.energyTotal
				watts = float64(delta) / (seconds - last.seconds) / 1e6
			} else {
				watts = float64(power) / 1e6
			}
			r.Watts = &watts
		}
		prev[z.Name()] = previous{energy, seconds}
		reads = append(reads, r)
	}
	return reads
}

type hammerResult struct {
	Reads int `json:"reads"`
	// Failed: a read Kepler's reader refused (an empty or partial file does not parse).
	Failed int `json:"failed"`
	// Wraps: decreases whose wrapped delta is less than half the range.
	Wraps int `json:"wraps"`
	// BadDecreases: decreases that are not such a wrap (a counter moved back).
	BadDecreases int `json:"badDecreases"`
	// OutOfRange: power readings (hwmon) outside 0..maxWatts.
	OutOfRange int      `json:"outOfRange"`
	Seconds    float64  `json:"seconds"`
	Errors     []string `json:"errors"`
}

func hammer(zones []device.EnergyZone, reads int, maxWatts float64) hammerResult {
	result := hammerResult{Errors: []string{}}
	type last struct {
		energy device.Energy
	}
	lastOf := map[string]last{}
	start := time.Now()
	for i := 0; i < reads; i++ {
		for _, z := range zones {
			result.Reads++
			if z.MaxEnergy() == 0 {
				power, err := z.Power()
				if err != nil {
					result.Failed++
					result.Errors = append(result.Errors, err.Error())
				} else if power.Watts() < 0 || power.Watts() > maxWatts {
					result.OutOfRange++
				}
				continue
			}
			energy, err := z.Energy()
			if err != nil {
				result.Failed++
				result.Errors = append(result.Errors, err.Error())
				continue
			}
			if before, ok := lastOf[z.Name()]; ok && energy < before.energy {
				// Between two reads microseconds apart a real wrap implies a small delta; a counter that
				// moved back by a little implies a delta of nearly the whole range.
				if delta := calculateEnergyDelta(energy, before.energy, z.MaxEnergy()); delta < z.MaxEnergy()/2 {
					result.Wraps++
				} else {
					result.BadDecreases++
				}
			}
			lastOf[z.Name()] = last{energy}
		}
	}
	result.Seconds = time.Since(start).Seconds()
	if len(result.Errors) > 5 {
		result.Errors = result.Errors[:5]
	}
	return result
}
