/**
 * Lets a few container starts run at once and holds the others back, releasing them lowest
 * precedence first, then in the order asked. An engine does each start's work (runc, the lab
 * network's set-up) on this machine's cores: one start per core keeps them busy, and a service
 * others wait for is not left behind starts asked before it that nothing waits for.
 */
export class StartQueue {
  private running = 0;
  private asked = 0;
  private readonly held: { precedence: number; order: number; run: () => void }[] = [];

  constructor(private readonly concurrency: number) {}

  run<T>(precedence: number, start: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const run = () => {
        start()
          .then(resolve, reject)
          .finally(() => {
            this.running -= 1;
            this.release();
          });
      };
      this.held.push({ precedence, order: this.asked++, run });
      this.release();
    });
  }

  private release(): void {
    while (this.running < this.concurrency && this.held.length > 0) {
      this.held.sort((a, b) => a.precedence - b.precedence || a.order - b.order);
      this.running += 1;
      this.held.shift()!.run();
    }
  }
}
