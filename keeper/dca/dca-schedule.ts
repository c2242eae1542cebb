/**
 * DCA slot arithmetic, pure. Iteration k (0-based) of a strategy has its slot at
 * `createdAt + k × frequency × 1000` ms: slots are fixed at creation, so the first iteration runs at once and a
 * late iteration never pushes the later ones back.
 *
 * Price bounds rule: an iteration whose price is outside [minPrice, maxPrice] waits for the price to come back
 * inside, at most until the next slot arrives (`slotPassed`), and is then marked `expired`. The last iteration
 * gets the same window, one frequency after its slot, although no iteration follows it.
 *
 * A keeper that was down for several slots finds them all due at once (`dueIterations`) and creates each
 * missed iteration; one whose window has already passed is subject to the rule above as soon as it is created.
 */

export interface DcaScheduleStrategy {
  /** Unix ms. */
  createdAt: number;
  /** Seconds between slots. */
  frequency: number;
  iterations: number;
  /** Iterations created so far: the next slot index to create. */
  iterationsCreated: number;
}

function frequencyMs(frequencyS: number): number {
  if (!Number.isFinite(frequencyS) || frequencyS < 0) {
    throw new RangeError(`DCA frequency must be a finite number of seconds >= 0, got ${frequencyS}`);
  }
  return frequencyS * 1000;
}

/** Unix ms of iteration k's slot. */
export function slotAt(createdAt: number, frequencyS: number, k: number): number {
  return createdAt + k * frequencyMs(frequencyS);
}

/**
 * Indexes k in [iterationsCreated, iterations) whose slot is <= nowMs, ascending, at most `limit` of them (the
 * rest come at the next call). Empty when nothing is due.
 */
export function dueIterations(
  strategy: DcaScheduleStrategy,
  nowMs: number,
  limit = Number.POSITIVE_INFINITY,
): number[] {
  const { createdAt, frequency, iterations, iterationsCreated } = strategy;
  const stepMs = frequencyMs(frequency);
  if (nowMs < createdAt) return [];
  // frequency 0: every slot is the creation time.
  let last =
    stepMs === 0 ? iterations - 1 : Math.min(iterations - 1, Math.floor((nowMs - createdAt) / stepMs));
  // The division may round either way for fractional frequencies; the slot comparison itself is the rule.
  while (last >= 0 && slotAt(createdAt, frequency, last) > nowMs) last--;
  while (last + 1 < iterations && slotAt(createdAt, frequency, last + 1) <= nowMs) last++;
  const out: number[] = [];
  for (let k = Math.max(0, iterationsCreated); k <= last && out.length < limit; k++) out.push(k);
  return out;
}

/** Unix ms of the next slot not yet created, or null when every iteration has been created. */
export function nextSlotAt(strategy: DcaScheduleStrategy): number | null {
  if (strategy.iterationsCreated >= strategy.iterations) return null;
  return slotAt(strategy.createdAt, strategy.frequency, Math.max(0, strategy.iterationsCreated));
}

/** True once the slot after `slotAtMs` has arrived: the end of an out-of-bounds iteration's wait. */
export function slotPassed(slotAtMs: number, frequencyS: number, nowMs: number): boolean {
  return nowMs >= slotAtMs + frequencyMs(frequencyS);
}

/**
 * Whether `price` (units of tokenTo per 1 tokenFrom) is inside the strategy's bounds, both inclusive; a null
 * bound is open. A price that is not a number is never inside.
 */
export function priceWithinBounds(price: number, minPrice: number | null, maxPrice: number | null): boolean {
  if (Number.isNaN(price)) return false;
  if (minPrice !== null && price < minPrice) return false;
  if (maxPrice !== null && price > maxPrice) return false;
  return true;
}
