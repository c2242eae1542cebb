import { ReplyError, type Redis } from 'ioredis';

interface Waiting {
  send(redis: Redis): Promise<unknown>;
  resolve(reply: unknown): void;
  reject(err: unknown): void;
}

/** After Redis failed to answer (timeout, connection lost), how long commands fail at once without being sent. */
const FAIL_FAST_MS = 1_000;

/**
 * Sends the Redis commands of every request handled in one turn of the event loop in one write: the connection's
 * socket is corked while they are issued, so the lot leaves in one system call instead of one each (a system call
 * costs more than a command here). Each command still gets its own reply or error. Not an ioredis pipeline: a
 * pipeline defines an accessor on each instance, which gives every pipeline a hidden class of its own in the old
 * generation holding the pipeline's commands, so every request's objects survived young collections and were
 * promoted (scavenges several times longer). Once Redis did not answer, commands fail at once for a second instead
 * of each waiting out its timeout: a request then meets one timeout, not one per command.
 */
export class RedisBatch {
  private queue: Waiting[] = [];
  private scheduled = false;
  private failingUntil = 0;

  constructor(readonly redis: Redis) {
    // Connected anew: no reason to wait out the rest of the second.
    redis.on('ready', () => {
      this.failingUntil = 0;
    });
  }

  /** Queues one command, issued by `send` with the turn's others; resolves with its reply. */
  run(send: (redis: Redis) => Promise<unknown>): Promise<unknown> {
    if (Date.now() < this.failingUntil) return Promise.reject(new Error('redis did not answer a moment ago'));
    return new Promise((resolve, reject) => {
      this.queue.push({ send, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    const batch = this.queue;
    this.queue = [];
    this.scheduled = false;
    // ioredis writes a command to the socket as it is issued (a connection not ready refuses it at once).
    const stream = this.redis.status === 'ready' ? this.redis.stream : undefined;
    stream?.cork();
    try {
      for (const w of batch) this.issue(w);
    } finally {
      stream?.uncork();
    }
  }

  private issue(w: Waiting): void {
    let reply: Promise<unknown>;
    try {
      reply = w.send(this.redis);
    } catch (err) {
      w.reject(err);
      return;
    }
    reply.then(w.resolve, (err: unknown) => {
      this.failed(err);
      w.reject(err);
    });
  }

  /** An error Redis answered (a bad command) says nothing of its health; any other one does. */
  private failed(err: unknown): void {
    if (!(err instanceof ReplyError)) this.failingUntil = Date.now() + FAIL_FAST_MS;
  }
}
