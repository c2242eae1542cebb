import { serviceUnavailable } from './gateway-error';

interface Pending {
  deadline: number;
  expire(): void;
  prev: Pending | undefined;
  next: Pending | undefined;
}

/**
 * The gateway timeout: a request still running `timeoutMs` after it started gets the gateway's 503; its late result
 * is discarded (a late failure is logged). Every request has the same timeout, so deadlines come in the order
 * requests start: the requests under way are one list in deadline order, watched by one timer set to the first
 * deadline, instead of a timer and a race per request.
 */
export class RequestDeadlines {
  private first: Pending | undefined;
  private last: Pending | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly timeoutMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Settles as `work` does, or rejects with the 503 at the deadline (`late` then hears of a late failure). */
  within(work: Promise<void>, late: (err: unknown) => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const entry: Pending = {
        deadline: this.now() + this.timeoutMs,
        expire: () => {
          work.catch(late);
          reject(serviceUnavailable());
        },
        prev: this.last,
        next: undefined,
      };
      if (this.last) this.last.next = entry;
      else this.first = entry;
      this.last = entry;
      if (!this.timer) this.arm(this.timeoutMs);
      work.then(
        () => {
          this.remove(entry);
          resolve();
        },
        (err: unknown) => {
          this.remove(entry);
          reject(err);
        },
      );
    });
  }

  /** Expires what is due and sets the timer to the next deadline. */
  private sweep(): void {
    this.timer = undefined;
    const now = this.now();
    while (this.first && this.first.deadline <= now) {
      const entry = this.first;
      this.remove(entry);
      entry.expire();
    }
    if (this.first) this.arm(Math.max(1, Math.ceil(this.first.deadline - now)));
  }

  /** The timer does not hold the process open: a request under way holds its connection, which does. */
  private arm(ms: number): void {
    this.timer = setTimeout(() => this.sweep(), ms);
    this.timer.unref();
  }

  /** Out of the list (once: an entry already out stays out). */
  private remove(entry: Pending): void {
    if (entry.prev) entry.prev.next = entry.next;
    else if (this.first === entry) this.first = entry.next;
    else return;
    if (entry.next) entry.next.prev = entry.prev;
    else this.last = entry.prev;
    entry.prev = entry.next = undefined;
  }
}
