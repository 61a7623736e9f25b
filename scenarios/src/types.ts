/** A scenario file: steps run in order against a lab that is up; the first failing step ends it. */
export interface Scenario {
  name: string;
  steps: Step[];
}

export type Bound = number | { at_least?: number; at_most?: number };

export type Step = (
  | { mine: { blocks: number; address?: string } }
  | { fund: { node?: string; address?: string; amount_sat: number } }
  | { channel: { from: string; to: string; capacity_sat: number; push_sat?: number } }
  | { pay: { from: string; to: string; amount_sat: number } }
  | { expect: { node?: string; channel_balance_sat?: Bound; chain_balance_sat?: Bound; height?: Bound } }
) & {
  /** The step must be refused or fail, with a message containing this text. */
  expect_error?: string;
};

export const WORK_VERBS = ['mine', 'fund', 'channel', 'pay'] as const;
