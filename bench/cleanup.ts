// What a bench starts is stopped at the end, on failure, and on Ctrl-C (SIGINT) or SIGTERM — also
// when the signal comes while something is still starting: that is awaited, then stopped.
export class Cleanup {
  private readonly steps: Array<() => Promise<unknown> | unknown> = [];
  private readonly starting = new Set<Promise<unknown>>();
  private interrupted = false;
  private running: Promise<void> | null = null;

  constructor() {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        this.interrupted = true;
        console.log(`\n${signal}: stopping what the bench started`);
        void Promise.allSettled([...this.starting])
          .then(() => this.run())
          .finally(() => process.exit(130));
      });
    }
  }

  /** Starts something and registers how to stop it; refuses to start anything once interrupted. */
  async acquire<T>(start: () => Promise<T>, stop: (started: T) => Promise<unknown> | unknown): Promise<T> {
    if (this.interrupted) throw new Error('interrupted');
    const starting = start();
    this.starting.add(starting);
    try {
      const started = await starting;
      this.steps.push(() => stop(started));
      return started;
    } finally {
      this.starting.delete(starting);
    }
  }

  /** Registers an undo step for something already there (a temp folder). */
  add(step: () => Promise<unknown> | unknown): void {
    this.steps.push(step);
  }

  /** Runs the steps last-first, once; a failing step is reported and the others still run. */
  run(): Promise<void> {
    this.running ??= (async () => {
      for (const step of this.steps.reverse())
        await Promise.resolve()
          .then(step)
          .catch((err) => console.error(`cleanup: ${(err as Error).message}`));
    })();
    return this.running;
  }
}
