// A bound on the payments under way at once: a payment takes a slot before it is sent and gives it
// back when it has ended; a decision that finds none free waits for one.

export class Slots {
  private used = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  get inUse(): number {
    return this.used;
  }

  /** Resolves once a slot is taken; rejects when `signal` aborts first. */
  take(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.used < this.size) {
      this.used += 1;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const granted = () => {
        signal.removeEventListener('abort', aborted);
        resolve();
      };
      const aborted = () => {
        this.waiting.splice(this.waiting.indexOf(granted), 1);
        reject(signal.reason);
      };
      signal.addEventListener('abort', aborted, { once: true });
      this.waiting.push(granted);
    });
  }

  /** Gives a slot back: to the longest waiting, else free. */
  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.used -= 1;
  }
}
