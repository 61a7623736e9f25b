// The paths that pick a value out of a step's output, in `save` and `expect`: a small, strict
// subset of JSONPath — `$`, `.key`, `['key']`, `[0]`, `[-1]` (from the end), `.length` of a list
// or text, and `[field=value]`, the first item of a list whose field equals the value.

export type PathPart = { key: string } | { index: number } | { field: string; equals: string };

export class PathError extends Error {}

const PART = /^(?:\.([A-Za-z_][\w-]*)|\['([^']*)'\]|\[(-?\d+)\]|\[([A-Za-z_][\w-]*)=([^\]]*)\])/;

export function parsePath(path: string): PathPart[] {
  if (!path.startsWith('$'))
    throw new PathError(`"${path}" is not a path: paths start with $ (e.g. $.payment_request)`);
  const parts: PathPart[] = [];
  let rest = path.slice(1);
  while (rest.length > 0) {
    const match = PART.exec(rest);
    if (!match)
      throw new PathError(
        `cannot read "${rest}" in the path "${path}" (write .key, ['key'], [0], [-1] or [field=value])`,
      );
    const [whole, dotted, quoted, index, field, equals] = match;
    if (dotted !== undefined || quoted !== undefined) parts.push({ key: dotted ?? quoted });
    else if (index !== undefined) parts.push({ index: Number(index) });
    else parts.push({ field, equals: equals.replace(/^['"]|['"]$/g, '') });
    rest = rest.slice(whole.length);
  }
  return parts;
}

/** The value at `path`; a path that leads nowhere is an error that says where it stopped. */
export function select(value: unknown, path: string): unknown {
  let current = value;
  let walked = '$';
  for (const part of parsePath(path)) {
    current = step(current, part, walked);
    walked += describePart(part);
  }
  return current;
}

function step(current: unknown, part: PathPart, walked: string): unknown {
  if ('key' in part) {
    if (part.key === 'length' && (Array.isArray(current) || typeof current === 'string')) return current.length;
    if (current === null || typeof current !== 'object' || Array.isArray(current))
      throw new PathError(`${walked} is ${kindOf(current)}, not an object with "${part.key}"`);
    if (!(part.key in current))
      throw new PathError(`${walked} has no "${part.key}" (it has ${Object.keys(current).join(', ') || 'no keys'})`);
    return (current as Record<string, unknown>)[part.key];
  }
  if (!Array.isArray(current)) throw new PathError(`${walked} is ${kindOf(current)}, not a list`);
  if ('index' in part) {
    const index = part.index < 0 ? current.length + part.index : part.index;
    if (index < 0 || index >= current.length)
      throw new PathError(`${walked} has ${current.length} item(s), no [${part.index}]`);
    return current[index];
  }
  const found = current.find(
    (item) =>
      item !== null &&
      typeof item === 'object' &&
      String((item as Record<string, unknown>)[part.field]) === part.equals,
  );
  if (found === undefined) throw new PathError(`${walked} has no item whose ${part.field} is "${part.equals}"`);
  return found;
}

function describePart(part: PathPart): string {
  if ('key' in part) return /^[A-Za-z_][\w-]*$/.test(part.key) ? `.${part.key}` : `['${part.key}']`;
  if ('index' in part) return `[${part.index}]`;
  return `[${part.field}=${part.equals}]`;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`;
}
