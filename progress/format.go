package progress

import (
	"fmt"
	"time"
)

// bytesText prints a byte count in binary units with three significant
// digits: progress needs a glance, not the exact figure.
func bytesText(n int64) string {
	v := float64(n)
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	i := 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	switch {
	case i == 0:
		return fmt.Sprintf("%d B", n)
	case v >= 100:
		return fmt.Sprintf("%.0f %s", v, units[i])
	case v >= 10:
		return fmt.Sprintf("%.1f %s", v, units[i])
	}
	return fmt.Sprintf("%.2f %s", v, units[i])
}

// rateText prints bytes per second in decimal GB/s, as the results do.
func rateText(bps float64) string {
	return fmt.Sprintf("%.3f GB/s", bps/1e9)
}

// etaText prints a remaining time coarsely: "45s", "3m05s", "2h10m".
func etaText(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm", s/3600, s%3600/60)
}
