// The item's date, and the calendar arithmetic that writes it without time.Time.

package gen

// firstDay and lastDay bound the dates, as days since 1970-01-01.
var firstDay, lastDay = daysFromCivil(1950, 1, 1), daysFromCivil(2025, 12, 31)

// date returns the item's date as days since 1970-01-01. Photos have many year-only dates
// (padded to January 1st), videos are mostly recent, documents spread over the whole range.
func (g *generator) date(ti int) (day int64, yearOnly, ok bool) {
	if g.chance(10) {
		return 0, false, false
	}
	switch ti {
	case 0:
		y := int64(1950 + g.rng.IntN(76))
		if g.chance(300) {
			return daysFromCivil(y, 1, 1), true, true
		}
		start := daysFromCivil(y, 1, 1)
		return start + g.rng.Int64N(daysFromCivil(y+1, 1, 1)-start), false, true
	case 1:
		y := max(2025-int64(g.rng.ExpFloat64()*7), 1950)
		start := daysFromCivil(y, 1, 1)
		return start + g.rng.Int64N(daysFromCivil(y+1, 1, 1)-start), false, true
	}
	return firstDay + g.rng.Int64N(lastDay-firstDay+1), false, true
}

func appendDate(b []byte, day int64) []byte {
	y, m, d := civilFromDays(day)
	b = append(b, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-')
	b = append(b, byte('0'+m/10), byte('0'+m%10), '-')
	return append(b, byte('0'+d/10), byte('0'+d%10))
}

// daysFromCivil and civilFromDays convert proleptic Gregorian dates to and from days since
// 1970-01-01 (H. Hinnant's algorithms), far cheaper per item than going through time.Time.
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

func civilFromDays(z int64) (y, m, d int64) {
	z += 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}
