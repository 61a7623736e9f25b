// rgb-lib's failures as the binding throws them: an Error whose text is the Rust value printed,
// `RgbLib(InvalidIndexer { details: "..." })` or `RgbLib(InsufficientAllocationSlots)`. They cross
// the worker thread as that text and are read back here.

const RGB_LIB_ERROR = /^RgbLib\((\w+)(?: \{ ([\s\S]*) \})?\)$/;

export class RgbLibError extends Error {
  /** rgb-lib's error variant (InvalidIndexer, InsufficientBitcoins, ...); '' for the binding's own argument checks. */
  readonly variant: string;
  /** The variant's fields as printed (`needed: 6000, available: 0`). */
  readonly fields: string;

  constructor(message: string) {
    super(message);
    this.name = 'RgbLibError';
    const match = RGB_LIB_ERROR.exec(message.trim());
    this.variant = match?.[1] ?? '';
    this.fields = match?.[2] ?? '';
  }

  /** One field of the variant: a quoted text (`details: "..."`) or a number (`needed: 6000`). */
  field(name: string): string | undefined {
    const match = new RegExp(`\\b${name}: (?:"((?:[^"\\\\]|\\\\.)*)"|(\\d+))`).exec(this.fields);
    if (!match) return undefined;
    return match[1] === undefined ? match[2] : match[1].replace(/\\(.)/g, '$1');
  }
}
