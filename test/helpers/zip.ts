// Reading a .vsix (a zip) in tests: the central directory's names, and the first bytes of an entry,
// enough to tell what kind of binary it holds. Only what vsce writes is handled (stored or deflated
// entries, no zip64).
import * as fs from 'node:fs';
import * as zlib from 'node:zlib';

export interface ZipEntry {
  name: string;
  method: number;
  compressed: number;
  size: number;
  offset: number;
}

export function zipEntries(buf: Buffer): ZipEntry[] {
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 65_557); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('not a zip: no end of central directory');
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const out: ZipEntry[] = [];
  for (let n = 0; n < count; n++) {
    if (buf.readUInt32LE(p) !== 0x02014b50) throw new Error(`bad central directory entry at ${p}`);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    out.push({
      method: buf.readUInt16LE(p + 10),
      compressed: buf.readUInt32LE(p + 20),
      size: buf.readUInt32LE(p + 24),
      offset: buf.readUInt32LE(p + 42),
      name: buf.toString('utf8', p + 46, p + 46 + nameLen),
    });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

/** The first `n` bytes of an entry (inflating only as much as needed). */
export function zipHead(buf: Buffer, e: ZipEntry, n = 4096): Buffer {
  const lh = e.offset;
  const data = lh + 30 + buf.readUInt16LE(lh + 26) + buf.readUInt16LE(lh + 28);
  if (e.method === 0) return buf.subarray(data, data + Math.min(n, e.size));
  if (e.method !== 8) throw new Error(`${e.name}: zip method ${e.method} not handled`);
  const chunk = buf.subarray(data, data + Math.min(e.compressed, n * 4 + 65_536));
  return zlib.inflateRawSync(chunk, { finishFlush: zlib.constants.Z_SYNC_FLUSH }).subarray(0, n);
}

export function readZip(file: string): { buf: Buffer; entries: ZipEntry[] } {
  const buf = fs.readFileSync(file);
  return { buf, entries: zipEntries(buf) };
}
