/**
 * Docker's log stream for a container without a TTY: frames of [stream, 0, 0, 0, size (u32 BE)]
 * then `size` bytes. Returns the payloads in order; text that is not framed comes back as is.
 */
export function demuxLogs(buffer: Buffer): string {
  const chunks: Buffer[] = [];
  let offset = 0;
  while (offset + 8 <= buffer.length) {
    const stream = buffer[offset];
    const size = buffer.readUInt32BE(offset + 4);
    if (stream > 2 || buffer[offset + 1] !== 0 || offset + 8 + size > buffer.length) return buffer.toString('utf8');
    chunks.push(buffer.subarray(offset + 8, offset + 8 + size));
    offset += 8 + size;
  }
  if (offset !== buffer.length) return buffer.toString('utf8');
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The content of the regular file named `name` at the top of a tar archive (what
 * GET /containers/{id}/archive gives for one file).
 */
export function fileFromTar(tar: Buffer, name: string): Buffer {
  let offset = 0;
  while (offset + 512 <= tar.length) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) break;
    const size = parseInt(header.subarray(124, 136).toString('latin1').replace(/\0.*$/s, '').trim() || '0', 8);
    const type = String.fromCharCode(header[156]);
    const start = offset + 512;
    const entry = header.subarray(0, 100).toString('utf8').replace(/\0.*$/s, '').replace(/^\.\//, '');
    if ((type === '0' || type === '\0') && entry === name) return Buffer.from(tar.subarray(start, start + size));
    offset = start + Math.ceil(size / 512) * 512;
  }
  throw new Error(`${name} is not a regular file`);
}

export async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}
