package ratelimit

import (
	"strconv"
	"testing"
	"time"
)

// fixedNowScript is redis_rate v10.0.1's allowN script with Redis TIME replaced by two
// arguments (seconds, microseconds), so Redis itself can be fed the same clock as Memory.
const fixedNowScript = `
local rate_limit_key = KEYS[1]
local burst = ARGV[1]
local rate = ARGV[2]
local period = ARGV[3]
local cost = tonumber(ARGV[4])
local emission_interval = period / rate
local increment = emission_interval * cost
local burst_offset = emission_interval * burst
local jan_1_2017 = 1483228800
local now = {tonumber(ARGV[5]), tonumber(ARGV[6])}
now = (now[1] - jan_1_2017) + (now[2] / 1000000)
local tat = redis.call("GET", rate_limit_key)
if not tat then
  tat = now
else
  tat = tonumber(tat)
end
tat = math.max(tat, now)
local new_tat = tat + increment
local allow_at = new_tat - burst_offset
local diff = now - allow_at
local remaining = diff / emission_interval
if remaining < 0 then
  local reset_after = tat - now
  local retry_after = diff * -1
  return {0, 0, tostring(retry_after), tostring(reset_after)}
end
local reset_after = new_tat - now
if reset_after > 0 then
  redis.call("SET", rate_limit_key, new_tat, "EX", math.ceil(reset_after))
end
local retry_after = -1
return {cost, remaining, tostring(retry_after), tostring(reset_after)}
`

// TestMemoryMirrorsScript feeds Memory and the script, run by Redis, the same irregular
// microsecond clock: every Decision must be identical to the nanosecond, rounding included.
// Every third request is an inspection (the script with a cost of 0, as Redis.Inspect runs it),
// and now and then a visitor never seen is inspected: neither side may keep anything for it.
func TestMemoryMirrorsScript(t *testing.T) {
	c := newRedisClient(t, redisURL(t))
	// redis_rate's conversion of the script's strings (Result.RetryAfter/ResetAfter).
	dur := func(s string) time.Duration {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		if f == -1 {
			return -1
		}
		return time.Duration(f * float64(time.Second))
	}
	for _, p := range []Policy{contract, {7, time.Second}, {3, 1234567 * time.Microsecond}, {100, 7 * time.Second}} {
		t.Run(strconv.Itoa(p.Limit)+"/"+p.Window.String(), func(t *testing.T) {
			clk := newClock()
			clk.Advance(987654321 * time.Nanosecond)
			m := NewMemory(p, clk.Now)
			prefix := uniquePrefix(t)
			interval := p.Window / time.Duration(p.Limit)
			script := func(key string, cost int) Decision {
				t.Helper()
				now := clk.Now()
				v, err := c.Eval(t.Context(), fixedNowScript, []string{prefix + key},
					p.Limit, p.Limit, p.Window.Seconds(), cost, now.Unix(), now.Nanosecond()/1000).Slice()
				if err != nil {
					t.Fatal(err)
				}
				if cost == 0 {
					return inspection(p, int(v[1].(int64)), dur(v[2].(string)), dur(v[3].(string)))
				}
				return decide(p, v[0].(int64) > 0, int(v[1].(int64)), dur(v[2].(string)), dur(v[3].(string)))
			}
			var allowed, limited, inspectedLeft, inspectedNone int
			for i := range 3000 {
				inspect := i%3 == 2
				var got Decision
				var err error
				if inspect {
					got, err = m.Inspect(t.Context(), "visitor")
				} else {
					got, err = m.Allow(t.Context(), "visitor")
				}
				if want := script("visitor", map[bool]int{true: 0, false: 1}[inspect]); err != nil || got != want {
					t.Fatalf("request %d (inspect %v): Memory %+v, %v; script %+v", i+1, inspect, got, err, want)
				}
				gap := time.Duration(i*7919)%(3*interval/2+13) + 1
				switch {
				case inspect && got.Remaining > 0:
					inspectedLeft++
				case inspect:
					inspectedNone++
				case got.Allowed:
					allowed++
				default:
					limited++
				}
				if inspect {
					// Inspections take no time to speak of: counted requests still outpace the drain.
					gap /= 4
				}
				if i%97 == 0 {
					ghost := "ghost-" + strconv.Itoa(i)
					held := m.Len()
					got, err := m.Inspect(t.Context(), ghost)
					if want := script(ghost, 0); err != nil || got != want || got != (Decision{Allowed: true, Limit: p.Limit, Remaining: p.Limit}) {
						t.Fatalf("unseen visitor: Memory %+v, %v; script %+v; want the full limit", got, err, want)
					}
					if n, err := c.Exists(t.Context(), prefix+ghost).Result(); err != nil || n != 0 || m.Len() != held {
						t.Fatalf("inspecting an unseen visitor kept state: %d Redis keys (%v), Memory holds %d, held %d", n, err, m.Len(), held)
					}
				}
				clk.Advance(gap)
			}
			if allowed == 0 || limited == 0 || inspectedLeft == 0 || inspectedNone == 0 {
				t.Fatalf("%d allowed, %d limited, %d inspections with requests left, %d with none: the sequence misses a case",
					allowed, limited, inspectedLeft, inspectedNone)
			}
		})
	}
}
