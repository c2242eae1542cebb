import { createHash } from 'node:crypto';
import { ReplyError } from 'ioredis';
import type { NonceUse } from '../../shared/store/repositories/nonces-repository';
import type { RedisBatch } from './redis-batch';
import { COMMAND_TIMEOUT_MS } from './redis-connection';
import { BUCKET_FUNCTIONS, bucketKey } from './redis-rate-limiter';
import type { TokenBucketRate } from './rate-limiter';

/**
 * The gateway's Redis work for a signed request whose credentials already checked out in the process, as one
 * script (one round trip, atomic), in the order the separate calls run: the IP's request token (RedisRateLimiter
 * 'requests', `ip:<ip>`), the IP's refused-attempt budget looked at (RedisRateLimiter 'auth-failures',
 * `auth-failures:<ip>`), the nonce (RedisNonceLedger's record, set only if absent) and the key's request token
 * (`key:<apiKey>`). Each step runs only when the ones before passed, as each middleware does.
 * A script Redis runs after the client stopped waiting for it (Redis hung, then woke up) must change nothing, as the
 * separate calls it stands for would have been refused by then: ARGV[6] is a deadline on Redis's own clock, past
 * which the script does nothing (step 5). The three buckets are read with one MGET (a bucket is one number), so the
 * whole gate is five Redis calls: the clock, the read, the IP's token, the nonce and the key's token.
 * KEYS ip bucket, failure bucket, nonce, key bucket; ARGV rate, burst, failure rate, failure burst, nonce ttl ms,
 * deadline ms. Returns {step, wait, now}: step 0 passed, 1 the IP's budget is spent, 2 its failure budget, 3 the
 * nonce was used, 4 the key's budget is spent, 5 too late; `now` is Redis's clock.
 */
const SIGNED_GATE = `${BUCKET_FUNCTIONS}
if now > tonumber(ARGV[6]) then return {5, 0, now} end
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local full = redis.call('MGET', KEYS[1], KEYS[2], KEYS[4])
local ipFull = tonumber(full[1])
local tokens = level(ipFull, rate, burst, now)
if tokens < 1 then return {1, refusal(tokens, rate), now} end
take(KEYS[1], ipFull, rate, now)
local failureRate = tonumber(ARGV[3])
tokens = level(tonumber(full[2]), failureRate, tonumber(ARGV[4]), now)
if tokens < 1 then return {2, refusal(tokens, failureRate), now} end
if not redis.call('SET', KEYS[3], '1', 'PX', ARGV[5], 'NX') then return {3, 0, now} end
local keyFull = tonumber(full[3])
tokens = level(keyFull, rate, burst, now)
if tokens < 1 then return {4, refusal(tokens, rate), now} end
take(KEYS[4], keyFull, rate, now)
return {0, 0, now}
`;

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

/** The key names and budgets are those of RedisRateLimiter and RedisNonceLedger: both paths share every record. */
export class RedisSignedGate {
  /** Redis's clock minus ours, from the last reply; unknown until a first reply (TIME at start). */
  private offsetMs: number | undefined;
  private learning: Promise<void> | undefined;

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
  async run(ip: string, use: NonceUse): Promise<GateOutcome> {
    const sentAt = this.now();
    if (this.offsetMs === undefined) {
      void this.start();
      return { kind: 'too-late' };
    }
    const deadline = sentAt + this.offsetMs + COMMAND_TIMEOUT_MS - DEADLINE_MARGIN_MS;
    const ttlMs = Math.max(1, Math.ceil(use.expiresAt - sentAt));
    const args = [
      bucketKey('requests', `ip:${ip}`),
      bucketKey('auth-failures', `auth-failures:${ip}`),
      `nonce:${use.apiKey}:${use.nonce}`,
      bucketKey('requests', `key:${use.apiKey}`),
      this.rate.perSecond,
      this.rate.burst,
      this.failureRate.perSecond,
      this.failureRate.burst,
      ttlMs,
      deadline,
    ];
    // By its SHA: the script's text goes to Redis once, not with every turn's pipeline. A Redis that does not hold
    // it (restarted, flushed) answers NOSCRIPT without running anything: it is loaded and the call sent again.
    const send = () => this.batch.run((p) => p.evalsha(SIGNED_GATE_SHA, 4, ...args));
    let answer: unknown;
    try {
      answer = await send();
    } catch (err) {
      if (!isNoScript(err)) throw err;
      await this.batch.redis.script('LOAD', SIGNED_GATE);
      answer = await send();
    }
    const reply = answer as [number, number, number];
    const [step, wait] = [Number(reply[0]), Number(reply[1])];
    this.offsetMs = Number(reply[2]) - this.now();
    switch (step) {
      case 0:
        return { kind: 'passed' };
      case 1:
        return { kind: 'ip-limited', retryAfter: wait };
      case 2:
        return { kind: 'failures-limited', retryAfter: wait };
      case 3:
        return { kind: 'replay' };
      case 4:
        return { kind: 'key-limited', retryAfter: wait };
      case 5:
        return { kind: 'too-late' };
      default:
        throw new Error(`signed gate script answered step ${step}`);
    }
  }
}
