// rgb-lib's errors as the binding throws them: an Error whose message is the Rust value printed,
// e.g. `RgbLib(InsufficientBitcoins { needed: 6000, available: 0 })` or
// `RgbLib(InvalidTicker { details: "ticker needs to be all uppercase" })`. Errors cross the worker
// thread as text, so this is also how the node reads them back.

export class RgbLibError extends Error {
  constructor(
    /** rgb-lib's variant name (InsufficientBitcoins), or '' when the text is not an rgb-lib error. */
    readonly variant: string,
    /** The variant's fields as text (`needed: 6000, available: 0`). */
    readonly fields: string,
    raw: string,
  ) {
    super(raw);
    this.name = 'RgbLibError';
  }

  /** A string field (`details: "..."`) or a number field (`needed: 6000`) of the variant. */
  field(name: string): string | undefined {
    const match = new RegExp(`\\b${name}: (?:"((?:[^"\\\\]|\\\\.)*)"|(\\d+))`).exec(this.fields);
    if (!match) return undefined;
    return match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2];
  }
}

export function parseRgbLibError(message: string): RgbLibError {
  const match = /^RgbLib\((\w+)(?: \{ ([\s\S]*) \})?\)$/.exec(message.trim());
  return match ? new RgbLibError(match[1], match[2] ?? '', message) : new RgbLibError('', '', message);
}
