/**
 * Keeps one upstream connected: connects, and after a failure or a drop tries
 * again with exponential backoff (1 s doubling to 30 s). A connection that
 * stayed up for a while resets the backoff, so a crash loop slows down but a
 * rare drop reconnects at once.
 */
export class Supervisor {
  private running = false;
  private stopped = false;
  private connected = false;
  private attempt = 0;
  private connectedAt = 0;
  private timer?: NodeJS.Timeout;
  private inflight?: Promise<void>;
  private readonly waiters = new Set<() => void>();

  constructor(
    private readonly hooks: {
      connect: () => Promise<void>;
      disconnect: () => Promise<void>;
      onRetry: () => void;
    },
    private readonly maxDelayMs = 30_000,
    private readonly stableMs = 30_000,
  ) {}

  /** Resolves when the first attempt has settled, connected or not. */
  start(): Promise<void> {
    if (this.running) return Promise.resolve();
    this.running = true;
    this.stopped = false;
    this.attempt = 0;
    return this.kick();
  }

  private kick(): Promise<void> {
    if (!this.running) return Promise.resolve();
    this.inflight ??= this.hooks
      .connect()
      .then(
        () => {
          this.connected = true;
          this.connectedAt = Date.now();
          for (const w of this.waiters) w();
        },
        (err: { permanent?: boolean }) => {
          this.connected = false;
          if (!err?.permanent) this.schedule();
        },
      )
      .finally(() => (this.inflight = undefined));
    return this.inflight;
  }

  private schedule(): void {
    if (!this.running) return;
    clearTimeout(this.timer);
    const delay = Math.min(1000 * 2 ** this.attempt, this.maxDelayMs);
    this.attempt++;
    this.hooks.onRetry();
    this.timer = setTimeout(() => void this.kick(), delay);
    this.timer.unref();
  }

  /** The connection went away on its own. */
  dropped(): void {
    this.connected = false;
    if (!this.running) return;
    if (Date.now() - this.connectedAt > this.stableMs) this.attempt = 0;
    this.schedule();
  }

  /** Drops the connection and connects again now (an HTTP session that vanished). */
  async reconnectNow(): Promise<void> {
    if (this.inflight) return this.inflight;
    clearTimeout(this.timer);
    this.connected = false;
    await this.hooks.disconnect();
    await this.kick();
  }

  waitConnected(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (this.connected) return Promise.resolve();
    // Not started yet is not stopped: at start-up, servers past the concurrency bound wait their turn.
    if (this.stopped) return Promise.reject(new Error('server is stopped'));
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        signal?.removeEventListener('abort', done);
        if (this.connected) resolve();
        else reject(new Error('not connected'));
      };
      const timer = setTimeout(done, Math.min(timeoutMs, 15_000));
      signal?.addEventListener('abort', done);
      this.waiters.add(done);
    });
  }

  async stop(): Promise<void> {
    this.running = false;
    this.stopped = true;
    clearTimeout(this.timer);
    await this.inflight?.catch(() => undefined);
    this.connected = false;
    await this.hooks.disconnect();
    for (const w of this.waiters) w();
  }
}
