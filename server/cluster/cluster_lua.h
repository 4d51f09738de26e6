/*
 * cluster_lua.h: the Lua scripts cluster.c runs in Redis (EVALSHA, EVAL after NOSCRIPT).
 * Internal to server/cluster. Each script is atomic in Redis: nothing else runs between
 * its reads and its writes, which is what makes the pairing and the buckets race-free
 * across nodes. Times come from Redis's TIME, so the nodes' clocks never matter.
 * docs/cluster.md describes the keys they touch. They compute some key names from the
 * prefix (ARGV[1]) instead of declaring them in KEYS: fine for one Redis (or a primary
 * with replicas), not for Redis Cluster, which this design does not use.
 */
#ifndef THUE_SERVER_CLUSTER_LUA_H
#define THUE_SERVER_CLUSTER_LUA_H

#define THUE__LUA_NOW                                                                              \
    "local t = redis.call('TIME')\n"                                                               \
    "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n"

/* KEYS: node hash, nodes zset, node's room set, node's name set, node's bot seat counts.
 * ARGV: name, address, state, rooms, players, ttl_ms. Writes the node's record, its
 * expiry in the zset (pruning the dead), refreshes the room and name sets' and the
 * counts' TTLs; returns {set, record, names, bots}: set 1 when the room set exists, 0
 * when it does not; record 1 when the node's record still existed, 0 when it had expired
 * (or was never written): meanwhile the other nodes took this node for dead, and joins
 * may have swept its waiting tickets out of the pools (THUE__LUA_JOIN,
 * THUE__LUA_RESTORE); names and bots as set, for the name set and the counts. */
#define THUE__LUA_HEARTBEAT                                                                        \
    THUE__LUA_NOW                                                                                  \
    "local ttl = tonumber(ARGV[6])\n"                                                              \
    "local record = redis.call('EXISTS', KEYS[1])\n"                                               \
    "redis.call('HSET', KEYS[1], 'name', ARGV[1], 'address', ARGV[2], 'state', ARGV[3],\n"         \
    "           'rooms', ARGV[4], 'players', ARGV[5], 'seen', tostring(now))\n"                    \
    "redis.call('PEXPIRE', KEYS[1], ttl)\n"                                                        \
    "redis.call('ZADD', KEYS[2], now + ttl, ARGV[1])\n"                                            \
    "redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. now)\n"                                \
    "return {redis.call('PEXPIRE', KEYS[3], ttl), record, redis.call('PEXPIRE', KEYS[4], ttl),\n"   \
    "        redis.call('PEXPIRE', KEYS[5], ttl)}\n"

/* KEYS: nodes zset. ARGV: prefix. The live nodes' records: {name, address, state, rooms,
 * players} each. */
#define THUE__LUA_NODES                                                                            \
    THUE__LUA_NOW                                                                                  \
    "local out = {}\n"                                                                             \
    "for _, n in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], now, '+inf')) do\n"                   \
    "  local f = redis.call('HMGET', ARGV[1] .. 'node:' .. n, 'name', 'address', 'state',\n"       \
    "                       'rooms', 'players')\n"                                                 \
    "  if f[1] then out[#out + 1] = f end\n"                                                       \
    "end\n"                                                                                        \
    "return out\n"

/* KEYS: the node's room set. ARGV: room, ttl_ms. */
#define THUE__LUA_ROOM_ADD                                                                         \
    "redis.call('SADD', KEYS[1], ARGV[1])\n"                                                       \
    "redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))\n"                                          \
    "return 1\n"

/* KEYS: nodes zset. ARGV: prefix, room. The live node whose room set holds the room, or
 * nil. O(nodes). */
#define THUE__LUA_LOOKUP                                                                           \
    "for _, n in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do\n"                                \
    "  if redis.call('SISMEMBER', ARGV[1] .. 'rooms:' .. n, ARGV[2]) == 1 and\n"                   \
    "     redis.call('EXISTS', ARGV[1] .. 'node:' .. n) == 1 then return n end\n"                  \
    "end\n"                                                                                        \
    "return false\n"

/*
 * KEYS: the pool's zset (member "node/ticket", score = the order of joining: a counter
 * qseq shared by the pools, so that two joins in one millisecond keep their order). ARGV: prefix,
 * pool, node, ticket, player, name, rating, ttl_ms, max_diff (< 0: any), sig (the
 * ticket's signature by its node: kept with it and passed on, never checked here: the
 * nodes check it, since Redis does not hold the secret).
 * Looks at the 64 longest-waiting tickets, dropping those that expired; one whose node
 * has no record (dead, or only late: its heartbeats stalled) is swept out of the pool but
 * its hash is kept, marked swept, for the rest of its TTL, so that its node, if it was
 * only late, puts it back (THUE__LUA_RESTORE) and a cancel of it answers 1 (it was never
 * paired). The first of another player within max_diff is taken: the pair is published on
 * its node's pair channel and kept for ttl_ms under qres:<member> (for a node whose
 * subscriber was reconnecting), and returned as {'paired', node, ticket, player, name,
 * rating, sig}. Otherwise this ticket waits (its hash holds its place in the pool, seq):
 * {'queued'}; {'dup'} when it already waits. A swept hash of the same member is replaced.
 */
#define THUE__LUA_JOIN                                                                             \
    "local p = ARGV[1]\n"                                                                          \
    "local rating, ttl, maxdiff = tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])\n"       \
    "local me = ARGV[3] .. '/' .. ARGV[4]\n"                                                       \
    "if redis.call('ZSCORE', KEYS[1], me) then\n"                                                  \
    "  if redis.call('EXISTS', p .. 'qt:' .. me) == 1 then return {'dup'} end\n"                   \
    "  redis.call('ZREM', KEYS[1], me)\n"                                                          \
    "end\n"                                                                                        \
    "if redis.call('HEXISTS', p .. 'qt:' .. me, 'swept') == 1 then\n"                              \
    "  redis.call('DEL', p .. 'qt:' .. me)\n"                                                      \
    "end\n"                                                                                        \
    "for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, 63)) do\n"                                \
    "  local tk = p .. 'qt:' .. m\n"                                                               \
    "  local f = redis.call('HMGET', tk, 'node', 'ticket', 'player', 'name', 'rating', 'sig')\n"   \
    "  if not f[1] then\n"                                                                         \
    "    redis.call('ZREM', KEYS[1], m)\n"                                                         \
    "  elseif redis.call('EXISTS', p .. 'node:' .. f[1]) == 0 then\n"                              \
    "    redis.call('ZREM', KEYS[1], m)\n"                                                         \
    "    redis.call('HSET', tk, 'swept', '1')\n"                                                   \
    "  elseif f[3] ~= ARGV[5] and\n"                                                               \
    "         (maxdiff < 0 or math.abs(tonumber(f[5]) - rating) <= maxdiff) then\n"                \
    "    redis.call('ZREM', KEYS[1], m)\n"                                                         \
    "    redis.call('DEL', tk)\n"                                                                  \
    "    local msg = cjson.encode({pool = ARGV[2],\n"                                              \
    "      mine = {node = f[1], ticket = f[2], player = f[3], name = f[4], rating = f[5],\n"      \
    "              sig = f[6] or ''},\n"                                                          \
    "      other = {node = ARGV[3], ticket = ARGV[4], player = ARGV[5], name = ARGV[6],\n"         \
    "               rating = ARGV[7], sig = ARGV[10]}})\n"                                         \
    "    redis.call('SET', p .. 'qres:' .. m, msg, 'PX', ttl)\n"                                   \
    "    redis.call('PUBLISH', p .. 'pair:' .. f[1], msg)\n"                                       \
    "    return {'paired', f[1], f[2], f[3], f[4], f[5], f[6] or ''}\n"                            \
    "  end\n"                                                                                      \
    "end\n"                                                                                        \
    "local tk = p .. 'qt:' .. me\n"                                                                \
    "local seq = redis.call('INCR', p .. 'qseq')\n"                                                \
    "redis.call('HSET', tk, 'node', ARGV[3], 'ticket', ARGV[4], 'player', ARGV[5],\n"              \
    "           'name', ARGV[6], 'rating', ARGV[7], 'sig', ARGV[10], 'seq', seq)\n"                \
    "redis.call('PEXPIRE', tk, ttl)\n"                                                             \
    "redis.call('ZADD', KEYS[1], seq, me)\n"                                                       \
    "if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end\n"          \
    "return {'queued'}\n"

/* KEYS: the pool's zset. ARGV: prefix, member. 1 when the ticket was still waiting, or
 * had been swept (its node taken for dead: never paired, and now never put back); 0 when
 * it was paired or had expired. */
#define THUE__LUA_CANCEL                                                                           \
    "local tk = ARGV[1] .. 'qt:' .. ARGV[2]\n"                                                     \
    "local n = redis.call('ZREM', KEYS[1], ARGV[2])\n"                                             \
    "if n == 0 then n = redis.call('HEXISTS', tk, 'swept') end\n"                                  \
    "redis.call('DEL', tk)\n"                                                                      \
    "return n\n"

/* KEYS: the pool's zset. ARGV: prefix, member. A ticket that a join swept while its node
 * was taken for dead goes back into the pool at its old place (its seq), the pool's TTL
 * at least the ticket's: 1; 0 when it was not swept (still waiting, paired, cancelled,
 * expired, or never queued). Sent by the ticket's node once its heartbeat has written its
 * record again, so no join can sweep it again meanwhile (unless the record lapses again,
 * which the next heartbeat sees). */
#define THUE__LUA_RESTORE                                                                          \
    "local tk = ARGV[1] .. 'qt:' .. ARGV[2]\n"                                                     \
    "if redis.call('HEXISTS', tk, 'swept') == 0 then return 0 end\n"                               \
    "local seq = redis.call('HGET', tk, 'seq') or redis.call('INCR', ARGV[1] .. 'qseq')\n"         \
    "redis.call('HDEL', tk, 'swept')\n"                                                            \
    "redis.call('ZADD', KEYS[1], seq, ARGV[2])\n"                                                  \
    "local ttl = redis.call('PTTL', tk)\n"                                                         \
    "if ttl > 0 and redis.call('PTTL', KEYS[1]) < ttl then\n"                                      \
    "  redis.call('PEXPIRE', KEYS[1], ttl)\n"                                                      \
    "end\n"                                                                                        \
    "return 1\n"

/* KEYS: nodes zset, this node's name set. ARGV: prefix, node, name key, ttl_ms. {0, 0}
 * when the name set of another live node holds the name key (a session of that name
 * lives there); otherwise the key goes into this node's set (its TTL at least ttl_ms) and
 * {1, 0} (the limit script's shape). O(nodes). */
#define THUE__LUA_NAME_CLAIM                                                                       \
    THUE__LUA_NOW                                                                                  \
    "for _, n in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], now, '+inf')) do\n"                  \
    "  if n ~= ARGV[2] and redis.call('SISMEMBER', ARGV[1] .. 'names:' .. n, ARGV[3]) == 1 then\n" \
    "    return {0, 0}\n"                                                                         \
    "  end\n"                                                                                      \
    "end\n"                                                                                        \
    "redis.call('SADD', KEYS[2], ARGV[3])\n"                                                       \
    "if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[4]) then\n"                                    \
    "  redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[4]))\n"                                        \
    "end\n"                                                                                        \
    "return {1, 0}\n"

/* KEYS: this node's counts (a hash). ARGV: field, delta, ttl_ms. Adds delta to the
 * field (a field at 0 or below goes), the hash's TTL at least ttl_ms. */
#define THUE__LUA_COUNT_ADD                                                                        \
    "if redis.call('HINCRBY', KEYS[1], ARGV[1], tonumber(ARGV[2])) <= 0 then\n"                    \
    "  redis.call('HDEL', KEYS[1], ARGV[1])\n"                                                     \
    "end\n"                                                                                        \
    "if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[3]) then\n"                                    \
    "  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))\n"                                        \
    "end\n"                                                                                        \
    "return 1\n"

/* KEYS: nodes zset, this node's counts. ARGV: prefix, ttl_ms, field 1, its limit, field 2
 * ("": none), its limit. The sums of each field over the counts of every live node (this
 * one's included); when a sum is at its limit already, {0, which} (1 or 2); otherwise both
 * fields go up by one in this node's counts (the hash's TTL at least ttl_ms): {1, 0}. So
 * of two nodes taking the last seat at once, one gets it. O(nodes). */
#define THUE__LUA_COUNT_TAKE                                                                       \
    THUE__LUA_NOW                                                                                  \
    "local sums = {0, 0}\n"                                                                        \
    "local fields = {ARGV[3], ARGV[5]}\n"                                                          \
    "for _, n in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], now, '+inf')) do\n"                  \
    "  for i = 1, 2 do\n"                                                                          \
    "    if fields[i] ~= '' then\n"                                                                \
    "      sums[i] = sums[i] + (tonumber(redis.call('HGET', ARGV[1] .. 'bots:' .. n, fields[i])) or 0)\n" \
    "    end\n"                                                                                    \
    "  end\n"                                                                                      \
    "end\n"                                                                                        \
    "if sums[1] >= tonumber(ARGV[4]) then return {0, 1} end\n"                                     \
    "if fields[2] ~= '' and sums[2] >= tonumber(ARGV[6]) then return {0, 2} end\n"                 \
    "for i = 1, 2 do\n"                                                                            \
    "  if fields[i] ~= '' then redis.call('HINCRBY', KEYS[2], fields[i], 1) end\n"                 \
    "end\n"                                                                                        \
    "if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[2]) then\n"                                    \
    "  redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[2]))\n"                                        \
    "end\n"                                                                                        \
    "return {1, 0}\n"

/* KEYS: the bucket (a hash: tokens, ts). ARGV: rate (tokens a second), burst.
 * {1, 0} when a token was taken, {0, retry_ms} otherwise. The bucket expires once it
 * would be full again (a full bucket and no bucket are the same). */
#define THUE__LUA_LIMIT                                                                            \
    THUE__LUA_NOW                                                                                  \
    "local rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2])\n"                                   \
    "local b = redis.call('HMGET', KEYS[1], 'tokens', 'ts')\n"                                     \
    "local tokens, ts = tonumber(b[1]), tonumber(b[2])\n"                                          \
    "if not tokens or not ts then tokens = burst; ts = now end\n"                                  \
    "if now > ts then tokens = math.min(burst, tokens + (now - ts) * rate / 1000) end\n"           \
    "local ok, retry = 0, 0\n"                                                                     \
    "if tokens >= 1 then tokens = tokens - 1; ok = 1\n"                                            \
    "else retry = math.max(1, math.ceil((1 - tokens) * 1000 / rate)) end\n"                        \
    "redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', tokens),\n"                      \
    "           'ts', tostring(now))\n"                                                            \
    "redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) * 1000 / rate) + 1000)\n"           \
    "return {ok, retry}\n"

#endif
