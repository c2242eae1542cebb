/**
 * Asks every external aggregator that serves the chain at once and answers with those that returned within the
 * budget: at the deadline the rest are aborted and left out, so one slow or hung aggregator never delays a quote
 * beyond the budget (the answer does not wait for an aborted request to wind down).
 */
import {
  ExternalAggregatorError,
  type ExternalAggregator,
  type ExternalAggregatorId,
  type ExternalQuote,
  type ExternalQuoteRequest,
} from './external-aggregator';

export interface ExternalQuoteFailure {
  id: ExternalAggregatorId;
  error: ExternalAggregatorError;
}

export interface ExternalQuotesWithinBudget {
  /** In the order of `aggregators`. */
  quotes: ExternalQuote[];
  /** Aggregators that answered in time without a quote (no route, refused, down), in the order of `aggregators`. */
  failures: ExternalQuoteFailure[];
  /** Aggregators that had not answered when the budget ran out (aborted). */
  lateIds: ExternalAggregatorId[];
}

type Outcome = { quote: ExternalQuote } | { error: ExternalAggregatorError };

/**
 * @param signal the caller's own cancellation (the client went away): aborts every request at once.
 */
export async function quoteWithinBudget(
  aggregators: readonly ExternalAggregator[],
  req: ExternalQuoteRequest,
  budgetMs: number,
  signal?: AbortSignal,
): Promise<ExternalQuotesWithinBudget> {
  const asked = aggregators.filter((aggregator) => aggregator.supports(req.chainId));
  if (asked.length === 0) return { quotes: [], failures: [], lateIds: [] };

  const controller = new AbortController();
  const abortWithCaller = () => controller.abort(signal?.reason);
  if (signal?.aborted) controller.abort(signal.reason);
  else signal?.addEventListener('abort', abortWithCaller, { once: true });

  const outcomes = new Map<ExternalAggregatorId, Outcome>();
  let closed = false;
  const settle = (id: ExternalAggregatorId, outcome: Outcome) => {
    // What arrives after the deadline belongs to no answer.
    if (!closed) outcomes.set(id, outcome);
  };
  const everyAnswer = Promise.all(
    asked.map((aggregator) =>
      // Through then(): a client that throws before returning its promise is a failure like any other.
      Promise.resolve()
        .then(() => aggregator.quote(req, controller.signal))
        .then(
          (quote) => settle(aggregator.id, { quote }),
          (error: unknown) => settle(aggregator.id, { error: asAggregatorError(aggregator.id, error) }),
        ),
    ),
  );

  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, budgetMs);
  });
  try {
    await Promise.race([everyAnswer, deadline]);
  } finally {
    closed = true;
    clearTimeout(timer);
    signal?.removeEventListener('abort', abortWithCaller);
    // The late ones stop: their sockets close and their promises settle into nothing.
    controller.abort(new Error(`the external quote budget of ${budgetMs} ms ran out`));
  }

  const result: ExternalQuotesWithinBudget = { quotes: [], failures: [], lateIds: [] };
  for (const { id } of asked) {
    const outcome = outcomes.get(id);
    if (outcome === undefined) result.lateIds.push(id);
    else if ('quote' in outcome) result.quotes.push(outcome.quote);
    else result.failures.push({ id, error: outcome.error });
  }
  return result;
}

function asAggregatorError(id: ExternalAggregatorId, error: unknown): ExternalAggregatorError {
  if (error instanceof ExternalAggregatorError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ExternalAggregatorError(id, 'unavailable', `${id}: ${message}`);
}
