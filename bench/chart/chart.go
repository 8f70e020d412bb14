// Package chart draws the figures of `make bench` as SVG from the results its runs saved
// (bench.Saved): throughput and latency percentiles against OpenSearch direct, cache hit rates,
// RSS over time, the gateway's own time and the search-box extras.
package chart

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// Series is one named set of bars, a value per group.
type Series struct {
	Name   string
	Values []float64
}

// Line is one named curve.
type Line struct {
	Name string
	X, Y []float64
}

// Size of every chart: readable in a page's column.
const (
	width  = 18 * vg.Centimeter
	height = 10 * vg.Centimeter
)

// Bars draws grouped bars: one group per name of groups, one bar per series in each group. With
// log set the value axis is logarithmic (for latencies that span orders of magnitude). Many
// groups, or long names, lie on their side: one group a row, its name on the left.
func Bars(title, unit string, groups []string, series []Series, log bool) ([]byte, error) {
	longest := 0
	for _, g := range groups {
		longest = max(longest, len(g))
	}
	horizontal := len(groups) > 4 || longest*len(groups) > 70
	p := newPlot(title, unit)
	value, category := &p.Y, &p.X
	h, slots := height, width
	if horizontal {
		value, category = &p.X, &p.Y
		p.Y.Label.Text, p.X.Label.Text = "", unit
		// Top to bottom in the given order.
		groups = slices.Clone(groups)
		slices.Reverse(groups)
		h = max(height, vg.Length(len(groups)*len(series))*0.35*vg.Centimeter+3*vg.Centimeter)
		slots = h
		p.NominalY(groups...)
	} else {
		p.NominalX(groups...)
	}
	if log {
		value.Scale = clampedLog{}
		value.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	// Each group has a unit of the category axis; its bars fill 80% of it.
	w := (slots - 3*vg.Centimeter) / vg.Length(max(len(groups), 1)) * 0.8 / vg.Length(max(len(series), 1))
	lo, hi := math.Inf(1), 0.0
	for i, s := range series {
		vals := make(plotter.Values, len(groups))
		for j := range vals {
			k := j
			if horizontal {
				k = len(groups) - 1 - j
			}
			if k < len(s.Values) {
				vals[j] = s.Values[k]
			}
			if vals[j] > 0 {
				lo, hi = min(lo, vals[j]), max(hi, vals[j])
			}
		}
		b, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return nil, fmt.Errorf("chart %q: %w", title, err)
		}
		b.Horizontal = horizontal
		b.LineStyle.Width = 0
		b.Color = plotutil.Color(i)
		// The first series on top when the bars lie down, on the left when they stand.
		off := float64(i) - float64(len(series)-1)/2
		if horizontal {
			off = -off
		}
		b.Offset = w * vg.Length(off)
		p.Add(b)
		p.Legend.Add(s.Name, b)
	}
	category.Min, category.Max = -0.5, float64(len(groups))-0.5
	// The legend sits in the top right corner, beyond the longest bar: above it when the bars
	// stand, to its right when they lie.
	room := 1 - 0.055*float64(len(series)+1)
	if horizontal {
		name := 0
		for _, s := range series {
			name = max(name, len(s.Name))
		}
		room = max(0.5, 1-float64(vg.Length(name)*5.5+30)/float64(width-5*vg.Centimeter))
	}
	switch {
	case hi == 0:
	case log:
		value.Min = math.Pow(10, math.Floor(math.Log10(lo)))
		value.Max = math.Pow(10, math.Log10(value.Min)+(math.Log10(hi)-math.Log10(value.Min))/room)
	default:
		value.Min, value.Max = 0, hi/room
	}
	return render(p, h)
}

// Lines draws curves against a common x axis.
func Lines(title, xUnit, yUnit string, lines []Line) ([]byte, error) {
	p := newPlot(title, yUnit)
	p.X.Label.Text = xUnit
	for i, l := range lines {
		xys := make(plotter.XYs, min(len(l.X), len(l.Y)))
		for j := range xys {
			xys[j] = plotter.XY{X: l.X[j], Y: l.Y[j]}
		}
		ln, err := plotter.NewLine(xys)
		if err != nil {
			return nil, fmt.Errorf("chart %q: %w", title, err)
		}
		ln.Color = plotutil.Color(i)
		ln.Dashes = plotutil.Dashes(i / len(plotutil.DefaultColors))
		ln.Width = vg.Points(1.5)
		p.Add(ln)
		p.Legend.Add(l.Name, ln)
	}
	p.Y.Min = 0
	p.Y.Max /= 1 - 0.055*float64(len(lines)+1)
	p.Legend.Left = true
	return render(p, height)
}

// clampedLog is a logarithmic scale on which a bar's foot at 0, and an empty bar, sit at the axis's
// minimum instead of having no place.
type clampedLog struct{}

func (clampedLog) Normalize(lo, hi, x float64) float64 {
	return plot.LogScale{}.Normalize(lo, hi, max(x, lo))
}

func newPlot(title, unit string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = unit
	grid := plotter.NewGrid()
	grid.Vertical.Width = 0
	p.Add(grid)
	p.BackgroundColor = color.White
	p.Legend.Top = true
	for _, st := range []*text.Style{&p.Title.TextStyle, &p.X.Label.TextStyle, &p.Y.Label.TextStyle,
		&p.X.Tick.Label, &p.Y.Tick.Label, &p.Legend.TextStyle} {
		st.Font.Variant = "Sans"
	}
	return p
}

func render(p *plot.Plot, h vg.Length) ([]byte, error) {
	wt, err := p.WriterTo(width, h, "svg")
	if err != nil {
		return nil, fmt.Errorf("chart %q: %w", p.Title.Text, err)
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("chart %q: %w", p.Title.Text, err)
	}
	return buf.Bytes(), nil
}
