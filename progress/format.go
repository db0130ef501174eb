package progress

import (
	"fmt"
	"time"
)

// rateText prints bytes per second in decimal GB/s, as the results do.
func rateText(bps float64) string {
	return fmt.Sprintf("%.3f GB/s", bps/1e9)
}

// etaText prints a remaining time coarsely: "45s", "3m05s", "2h10m".
// elapsedText is how long a phase took: tenths of a second under a
// minute (a short phase would read "0s"), else as etaText.
func elapsedText(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return etaText(d)
}

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
