package gen

import (
	"testing"
	"time"
)

func TestCivilDays(t *testing.T) {
	for _, tc := range []struct {
		y, m, d int64
		days    int64
		text    string
	}{
		{1970, 1, 1, 0, "1970-01-01"},
		{1969, 12, 31, -1, "1969-12-31"},
		{1950, 1, 1, -7305, "1950-01-01"},
		{2000, 2, 29, 11016, "2000-02-29"},
		{1900, 3, 1, -25508, "1900-03-01"},
		{2025, 12, 31, 20453, "2025-12-31"},
		{1600, 1, 1, -135140, "1600-01-01"},
	} {
		t.Run(tc.text, func(t *testing.T) {
			if got := daysFromCivil(tc.y, tc.m, tc.d); got != tc.days {
				t.Errorf("daysFromCivil = %d, want %d", got, tc.days)
			}
			if y, m, d := civilFromDays(tc.days); y != tc.y || m != tc.m || d != tc.d {
				t.Errorf("civilFromDays(%d) = %d-%d-%d", tc.days, y, m, d)
			}
			if got := string(appendDate(nil, tc.days)); got != tc.text {
				t.Errorf("appendDate = %q, want %q", got, tc.text)
			}
		})
	}
}

// TestCivilDaysAgreeWithTime: every day the generator can write is the day time.Time names.
func TestCivilDaysAgreeWithTime(t *testing.T) {
	for day := firstDay; day <= lastDay; day++ {
		want := time.Unix(day*86400, 0).UTC().Format(time.DateOnly)
		if got := string(appendDate(nil, day)); got != want {
			t.Fatalf("day %d: %q, want %q", day, got, want)
		}
		y, m, d := civilFromDays(day)
		if back := daysFromCivil(y, m, d); back != day {
			t.Fatalf("day %d comes back as %d", day, back)
		}
	}
}

// TestDateByType checks the dates each type is promised: all within 1950..2025, about 1% missing,
// photos often year-only (January 1st), videos mostly recent.
func TestDateByType(t *testing.T) {
	const draws = 20000
	for _, tc := range []struct {
		typ            int
		minYearOnly    float64
		maxYearOnly    float64
		minRecentShare float64 // share of dates in 2015 or later
	}{
		{typ: 0, minYearOnly: 0.2, maxYearOnly: 0.4, minRecentShare: 0.1},
		{typ: 1, minYearOnly: 0, maxYearOnly: 0, minRecentShare: 0.7},
		{typ: 2, minYearOnly: 0, maxYearOnly: 0, minRecentShare: 0.1},
	} {
		t.Run(typeNames[tc.typ], func(t *testing.T) {
			g := newGenerator(5)
			var missing, yearOnly, recent int
			for range draws {
				day, yo, ok := g.date(tc.typ)
				if !ok {
					missing++
					continue
				}
				if day < firstDay || day > lastDay {
					t.Fatalf("day %d (%s) outside 1950..2025", day, appendDate(nil, day))
				}
				if yo {
					yearOnly++
					if _, m, d := civilFromDays(day); m != 1 || d != 1 {
						t.Fatalf("a year-only date on %s, want January 1st", appendDate(nil, day))
					}
				}
				if y, _, _ := civilFromDays(day); y >= 2015 {
					recent++
				}
			}
			share := func(k int) float64 { return float64(k) / draws }
			if s := share(missing); s < 0.003 || s > 0.03 {
				t.Errorf("%.2f%% missing, want about 1%%", 100*s)
			}
			if s := share(yearOnly); s < tc.minYearOnly || s > tc.maxYearOnly {
				t.Errorf("%.1f%% year-only, want %.0f%% to %.0f%%", 100*s, 100*tc.minYearOnly, 100*tc.maxYearOnly)
			}
			if s := share(recent); s < tc.minRecentShare {
				t.Errorf("%.1f%% from 2015 on, want at least %.0f%%", 100*s, 100*tc.minRecentShare)
			}
		})
	}
}
