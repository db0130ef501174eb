package main

import "ioswarm/chart"

// chartWords are the chart flags that put a report's words on a chart:
// its title, subtitle, axis labels and the phases it draws.
type chartWords struct {
	Title, Subtitle, XLabel, YLabel, IOPSLabel, ChartPhases string
}

// chartSpec is how to draw a chart: its size and its words.
type chartSpec struct {
	size   chart.Size
	labels chart.Labels
}

// chartSpecFrom checks the chart flags; g tells a --subtitle "" given to
// drop the configuration line from no --subtitle at all.
func chartSpecFrom(o chartOptions, g given) (chartSpec, error) {
	size, err := chartSizeFrom(o.ChartSize)
	if err != nil {
		return chartSpec{}, err
	}
	phases, err := chart.ParsePhases(o.ChartPhases)
	if err != nil {
		return chartSpec{}, flagError("chart-phases", o.ChartPhases, err)
	}
	return chartSpec{size: size, labels: chart.Labels{Title: o.Title, Subtitle: o.Subtitle, SubtitleSet: g["subtitle"],
		XLabel: o.XLabel, YLabel: o.YLabel, IOPSLabel: o.IOPSLabel, Phases: phases}}, nil
}
