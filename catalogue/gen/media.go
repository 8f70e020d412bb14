// The item's files: media and thumbnail links, mime type, size and the dimensions of its type.

package gen

import (
	"math"
	"strconv"
)

// appendMedia appends media_url, thumbnail_url, mime_type, size_bytes and the type's dimensions,
// consistent with each other and with the type.
func (g *generator) appendMedia(b []byte, ti int, ts *typeSpec, id []byte) []byte {
	m := ts.media[g.weighted(ts.mediaCum)]
	hasFile := false
	switch {
	case g.chance(70):
		// No media link, as for many archive records.
	case ti == 1 && g.chance(250):
		// A player page, not a file: no mime type, as real exports do for hosted videos.
		b = append(b, `,"media_url":"https://video.example.org/watch?v=`...)
		b = appendVideoKey(b, g.rng.Uint64())
		b = append(b, '"')
	default:
		hasFile = true
		b = append(b, `,"media_url":"`+mediaBase...)
		b = append(b, typeNames[ti]...)
		b = append(b, '/')
		b = append(b, id...)
		b = append(b, '.')
		b = append(b, m.ext...)
		b = append(b, '"')
	}
	if g.chance([3]int{950, 850, 150}[ti]) {
		b = append(b, `,"thumbnail_url":"`+mediaBase+`thumbs/`...)
		b = append(b, id...)
		b = append(b, `.jpg"`...)
	} else if g.chance(300) {
		b = append(b, `,"thumbnail_url":null`...)
	}
	if hasFile && !g.chance(50) {
		b = append(b, `,"mime_type":"`...)
		b = append(b, m.mime...)
		b = append(b, '"')
	}

	var size float64
	switch ti {
	case 0:
		wh := photoSizes[g.rng.IntN(len(photoSizes))]
		w, h := wh[0], wh[1]
		if g.chance(150) {
			// A scan: any size.
			w = int64(400 + g.rng.IntN(8600))
			h = int64(float64(w) * (0.5 + g.rng.Float64()))
		}
		if g.chance(350) {
			w, h = h, w
		}
		size = float64(w*h) * m.perPixel * (0.6 + 0.8*g.rng.Float64())
		if hasFile && !g.chance(100) {
			b = appendSize(b, size)
		}
		if !g.chance(50) {
			b = append(b, `,"width":`...)
			b = strconv.AppendInt(b, w, 10)
			b = append(b, `,"height":`...)
			b = strconv.AppendInt(b, h, 10)
		}
	case 1:
		dur := min(max(math.Exp(7.3+0.7*g.rng.NormFloat64()), 10), 4*3600)
		size = dur * (50e3 + 350e3*g.rng.Float64())
		if hasFile && !g.chance(100) {
			b = appendSize(b, size)
		}
		if !g.chance(70) {
			b = append(b, `,"duration_seconds":`...)
			if g.chance(300) {
				b = strconv.AppendFloat(b, math.Round(dur*100)/100, 'f', -1, 64)
			} else {
				b = strconv.AppendInt(b, int64(dur), 10)
			}
		}
	default:
		size = math.Exp(12.6 + 1.1*g.rng.NormFloat64())
		if hasFile && !g.chance(100) {
			b = appendSize(b, size)
		}
	}
	return b
}

func appendSize(b []byte, size float64) []byte {
	b = append(b, `,"size_bytes":`...)
	return strconv.AppendInt(b, max(int64(size), 1), 10)
}

// appendVideoKey appends an 11-character id as video hosts use.
func appendVideoKey(b []byte, u uint64) []byte {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	for range 11 {
		b = append(b, alphabet[u&63])
		u >>= 6
	}
	return b
}
