package querylog

import (
	"strconv"

	"github.com/redis/go-redis/v9"
)

// record adds a chunk of a tally (at most MaxBatch texts) to one bucket in Redis: Space-Saving
// (see sketch) on each sorted set, kept to k members, each member's visitors in the hash beside
// it (at most v tags, gone with the member), and the totals in the hash of totals. KEYS are the
// bucket's (Options.keys); ARGV is k, the unix time the keys expire at, v, a tag's length, the
// searches and those that found nothing, then a (text, count, no-result count, its visitors,
// no-result visitors) quintuple per text. A weight of 0 is not added, so it never evicts a text.
var record = redis.NewScript(`
local k, size = tonumber(ARGV[1]), tonumber(ARGV[4])
local most = tonumber(ARGV[3]) * size
local function holds(have, t)
  for j = 1, #have, size do
    if string.sub(have, j, j + size - 1) == t then return true end
  end
  return false
end
local function merge(key, text, tags)
  if tags == '' then return end
  local have = redis.call('HGET', key, text) or ''
  local before = #have
  for i = 1, #tags, size do
    if #have >= most then break end
    local t = string.sub(tags, i, i + size - 1)
    if not holds(have, t) then have = have .. t end
  end
  if #have > before then redis.call('HSET', key, text, have) end
end
local function add(key, by, text, w, tags)
  if w <= 0 then return end
  if redis.call('ZSCORE', key, text) or redis.call('ZCARD', key) < k then
    redis.call('ZINCRBY', key, w, text)
  else
    local least = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
    redis.call('ZREM', key, least[1])
    redis.call('HDEL', by, least[1])
    redis.call('ZADD', key, tonumber(least[2]) + w, text)
  end
  merge(by, text, tags)
end
for i = 7, #ARGV, 5 do
  add(KEYS[1], KEYS[4], ARGV[i], tonumber(ARGV[i + 1]), ARGV[i + 3])
  add(KEYS[2], KEYS[5], ARGV[i], tonumber(ARGV[i + 2]), ARGV[i + 4])
end
redis.call('HINCRBY', KEYS[3], 'all', ARGV[5])
redis.call('HINCRBY', KEYS[3], 'zero', ARGV[6])
for _, key in ipairs(KEYS) do redis.call('EXPIREAT', key, ARGV[2]) end
return 0
`)

// recordArgs are the script's ARGV for a chunk of a tally of the bucket.
func (o Options) recordArgs(bucket int64, t tally) []any {
	args := make([]any, 0, 6+5*len(t.texts))
	args = append(args, o.Top, o.expireAt(bucket), MinVisitors, tagHex, t.searches, t.noResults)
	for text, c := range t.texts {
		args = append(args, text, strconv.FormatInt(c.all, 10), strconv.FormatInt(c.zero, 10), c.allBy.String(), c.zeroBy.String())
	}
	return args
}

// expireAt is when a bucket's keys go: once the last window it falls in has ended, plus one bucket
// for replicas whose clocks differ a little.
func (o Options) expireAt(bucket int64) int64 {
	secs := int64(o.bucketLen().Seconds())
	return (bucket + Buckets + 2) * secs
}
