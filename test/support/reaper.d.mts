export function reap(registry: string, options?: { spareVitest?: boolean }): Promise<{ processes: number; containers: number }>;
export function marked(registry: string, spareVitest: boolean): number[];
