import { createHash } from 'node:crypto';
import { ReplyError } from 'ioredis';
import type { NonceUse } from '../../shared/store/repositories/nonces-repository';
import type { RedisBatch } from './redis-batch';
import { COMMAND_TIMEOUT_MS } from './redis-connection';
import { BUCKET_FUNCTIONS, bucketKey } from './redis-rate-limiter';
import type { TokenBucketRate } from './rate-limiter';

/**
 * The gateway's Redis work for the signed requests of one turn of the event loop whose credentials already checked
 * out in the process, as one script (one round trip, atomic). For each request, in arrival order, the steps run in
 * the order the separate calls run: the IP's request token (RedisRateLimiter 'requests', `ip:<ip>`), the IP's
 * refused-attempt budget looked at (RedisRateLimiter 'auth-failures', `auth-failures:<ip>`), the nonce
 * (RedisNonceLedger's record, set only if absent) and the key's request token (`key:<apiKey>`). Each step runs only
 * when the ones before passed, as each middleware does; a request sees the buckets as the requests before it in the
 * batch left them, exactly as if each had been its own script. One script per turn instead of one per request: the
 * script's set-up, the command's encoding and its reply's decoding are paid once for the lot.
 * A script Redis runs after the client stopped waiting for it (Redis hung, then woke up) must change nothing, as the
 * separate calls it stands for would have been refused by then: ARGV[5] is a deadline on Redis's own clock, past
 * which the script does nothing (step 5 for every request). A bucket (one number) is read at most once and written
 * at most once per script, however many of its requests share it, so the whole batch costs the clock, a read and a
 * write per bucket it touches, and one SET per nonce.
 * KEYS per request: ip bucket, failure bucket, nonce, key bucket. ARGV rate, burst, failure rate, failure burst,
 * deadline ms, then each request's nonce ttl ms. Returns {now, step, wait, step, wait, …}, a step and a wait per
 * request: step 0 passed, 1 the IP's budget is spent, 2 its failure budget, 3 the nonce was used, 4 the key's budget
 * is spent, 5 too late; `now` is Redis's clock.
 */
const SIGNED_GATE = `${BUCKET_FUNCTIONS}
local count = #KEYS / 4
local out = {now}
if now > tonumber(ARGV[5]) then
  for i = 1, count do out[2 * i] = 5; out[2 * i + 1] = 0 end
  return out
end
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local failureRate = tonumber(ARGV[3])
local failureBurst = tonumber(ARGV[4])
-- Buckets are read once and written once per script, however many of its requests share them (a client's requests
-- share their IP's and their key's): what the requests before left is kept here in between.
local buckets = {}
local written = {}
local function fullAt(key)
  local held = buckets[key]
  if held == nil then
    held = tonumber(redis.call('GET', key)) or false
    buckets[key] = held
  end
  return held or nil
end
local function spend(key, full)
  if full == nil or full < now then full = now end
  buckets[key] = full + 1000 / rate
  if not written[key] then
    written[key] = true
    written[#written + 1] = key
  end
end
local function gate(ip, failures, nonce, key, ttl)
  local ipFull = fullAt(ip)
  local tokens = level(ipFull, rate, burst, now)
  if tokens < 1 then return 1, refusal(tokens, rate) end
  spend(ip, ipFull)
  tokens = level(fullAt(failures), failureRate, failureBurst, now)
  if tokens < 1 then return 2, refusal(tokens, failureRate) end
  if not redis.call('SET', nonce, '1', 'PX', ttl, 'NX') then return 3, 0 end
  local keyFull = fullAt(key)
  tokens = level(keyFull, rate, burst, now)
  if tokens < 1 then return 4, refusal(tokens, rate) end
  spend(key, keyFull)
  return 0, 0
end
for i = 1, count do
  local k = 4 * (i - 1)
  out[2 * i], out[2 * i + 1] = gate(KEYS[k + 1], KEYS[k + 2], KEYS[k + 3], KEYS[k + 4], ARGV[5 + i])
end
for _, key in ipairs(written) do
  local full = buckets[key]
  redis.call('SET', key, tostring(full), 'PX', math.min(math.ceil(full - now) + 1000, 1e12))
end
return out
`;

/** Requests per script at most: a turn with more sends several scripts (in the same write). */
const MAX_BATCH = 128;

/**
 * How much sooner than the client's command timeout the script's deadline falls: the clock offset is learnt from
 * replies (one-way delay unaccounted), and a reply still has to travel back.
 */
const DEADLINE_MARGIN_MS = 250;

export type GateOutcome =
  | { kind: 'passed' }
  | { kind: 'too-late' }
  | { kind: 'ip-limited' | 'failures-limited' | 'key-limited'; retryAfter: number }
  | { kind: 'replay' };

/** The script's SHA-1, by which Redis runs it once it holds it. */
const SIGNED_GATE_SHA = createHash('sha1').update(SIGNED_GATE).digest('hex');

const isNoScript = (err: unknown): boolean =>
  err instanceof ReplyError && (err as Error).message.startsWith('NOSCRIPT');

interface Waiting {
  ip: string;
  use: NonceUse;
  resolve(outcome: GateOutcome): void;
  reject(err: unknown): void;
}

const STEPS: Record<number, (wait: number) => GateOutcome> = {
  0: () => ({ kind: 'passed' }),
  1: (retryAfter) => ({ kind: 'ip-limited', retryAfter }),
  2: (retryAfter) => ({ kind: 'failures-limited', retryAfter }),
  3: () => ({ kind: 'replay' }),
  4: (retryAfter) => ({ kind: 'key-limited', retryAfter }),
  5: () => ({ kind: 'too-late' }),
};

/** The key names and budgets are those of RedisRateLimiter and RedisNonceLedger: both paths share every record. */
export class RedisSignedGate {
  /** Redis's clock minus ours, from the last reply; unknown until a first reply (TIME at start). */
  private offsetMs: number | undefined;
  private learning: Promise<void> | undefined;
  /** The requests that will go in the script already queued on the Redis batch of this turn, if one is. */
  private gathering: Waiting[] | undefined;

  constructor(
    private readonly batch: RedisBatch,
    private readonly rate: TokenBucketRate,
    private readonly failureRate: TokenBucketRate,
    private readonly now: () => number = Date.now,
  ) {}

  /** Learns Redis's clock (before that, `run` answers too-late and requests take the separate calls). */
  start(): Promise<void> {
    this.learning ??= this.batch.redis
      .time()
      .then(
        ([seconds, micros]) => {
          this.offsetMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) - this.now();
        },
        () => undefined, // Redis down: asked again by a later request (they go the separate way until then).
      )
      .finally(() => {
        this.learning = undefined;
      });
    return this.learning;
  }

  /**
   * Rejects when Redis did not answer; answers too-late when the script ran too late to count, or Redis's clock is
   * not known yet. The caller then takes the separate calls, with their fallbacks.
   */
  run(ip: string, use: NonceUse): Promise<GateOutcome> {
    if (this.offsetMs === undefined) {
      void this.start();
      return Promise.resolve({ kind: 'too-late' });
    }
    return new Promise((resolve, reject) => {
      const waiting: Waiting = { ip, use, resolve, reject };
      if (this.gathering && this.gathering.length < MAX_BATCH) {
        this.gathering.push(waiting);
        return;
      }
      const group = [waiting];
      this.gathering = group;
      void this.send(group);
    });
  }

  /**
   * Queues the group's script on this turn's Redis batch; requests arriving before the batch goes out join the
   * group. By its SHA: the script's text goes to Redis once, not with every turn's write. A Redis that does not hold
   * it (restarted, flushed) answers NOSCRIPT without running anything: it is loaded and the group sent again.
   */
  private async send(group: Waiting[]): Promise<void> {
    const issue = () =>
      this.batch.run((redis) => {
        // The batch is going out: later requests start a group of their own.
        if (this.gathering === group) this.gathering = undefined;
        return redis.evalsha(SIGNED_GATE_SHA, group.length * 4, ...this.argumentsOf(group, this.now()));
      });
    try {
      let answer: unknown;
      try {
        answer = await issue();
      } catch (err) {
        if (!isNoScript(err)) throw err;
        await this.batch.redis.script('LOAD', SIGNED_GATE);
        answer = await issue();
      }
      const reply = (answer as unknown[]).map(Number);
      this.offsetMs = reply[0]! - this.now();
      group.forEach((w, i) => {
        const step = STEPS[reply[1 + 2 * i]!];
        if (step) w.resolve(step(reply[2 + 2 * i]!));
        else w.reject(new Error(`signed gate script answered step ${reply[1 + 2 * i]}`));
      });
    } catch (err) {
      if (this.gathering === group) this.gathering = undefined;
      for (const w of group) w.reject(err);
    }
  }

  /** KEYS (four per request), then ARGV: the budgets, the deadline on Redis's clock, each request's nonce ttl. */
  private argumentsOf(group: Waiting[], sentAt: number): (string | number)[] {
    const deadline = sentAt + this.offsetMs! + COMMAND_TIMEOUT_MS - DEADLINE_MARGIN_MS;
    const keys: string[] = [];
    const ttls: number[] = [];
    for (const { ip, use } of group) {
      keys.push(
        bucketKey('requests', `ip:${ip}`),
        bucketKey('auth-failures', `auth-failures:${ip}`),
        `nonce:${use.apiKey}:${use.nonce}`,
        bucketKey('requests', `key:${use.apiKey}`),
      );
      ttls.push(Math.max(1, Math.ceil(use.expiresAt - sentAt)));
    }
    return [
      ...keys,
      this.rate.perSecond,
      this.rate.burst,
      this.failureRate.perSecond,
      this.failureRate.burst,
      deadline,
      ...ttls,
    ];
  }
}
