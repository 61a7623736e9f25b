export function reap(
  registry: string,
  options?: { spareVitest?: boolean },
): Promise<{ processes: string[]; containers: number }>;
export function marked(registry: string, spareVitest: boolean): number[];
