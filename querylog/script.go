package querylog

import (
	"strconv"

	"github.com/redis/go-redis/v9"
)

// record adds a tally to one bucket in Redis: Space-Saving (see sketch) on each sorted set, kept
// to k members, and the totals in the hash. KEYS are the bucket's (Options.keys); ARGV is k, the
// unix time the keys expire at, then a (text, searches, no-result searches) triple per text.
// A weight of 0 is not added, so it never evicts a text.
var record = redis.NewScript(`
local k = tonumber(ARGV[1])
local function add(key, text, w)
  if w <= 0 then return end
  if redis.call('ZSCORE', key, text) or redis.call('ZCARD', key) < k then
    redis.call('ZINCRBY', key, w, text)
    return
  end
  local least = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  redis.call('ZREM', key, least[1])
  redis.call('ZADD', key, tonumber(least[2]) + w, text)
end
local all, zero = 0, 0
for i = 3, #ARGV, 3 do
  local n, z = tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2])
  add(KEYS[1], ARGV[i], n)
  add(KEYS[2], ARGV[i], z)
  all, zero = all + n, zero + z
end
redis.call('HINCRBY', KEYS[3], 'all', all)
redis.call('HINCRBY', KEYS[3], 'zero', zero)
for _, key in ipairs(KEYS) do redis.call('EXPIREAT', key, ARGV[2]) end
return all
`)

// recordArgs are the script's ARGV for a tally of the bucket.
func (o Options) recordArgs(bucket int64, t tally) []any {
	args := make([]any, 0, 2+3*len(t))
	args = append(args, o.Top, o.expireAt(bucket))
	for text, c := range t {
		args = append(args, text, strconv.FormatInt(c.all, 10), strconv.FormatInt(c.zero, 10))
	}
	return args
}

// expireAt is when a bucket's keys go: once the last window it falls in has ended, plus one bucket
// for replicas whose clocks differ a little.
func (o Options) expireAt(bucket int64) int64 {
	secs := int64(o.bucketLen().Seconds())
	return (bucket + Buckets + 2) * secs
}
