// What a native binary is, from its first bytes: ELF (Linux), Mach-O (macOS) or PE (Windows), and
// for which CPU. Enough to prove a package carries the right platform's binaries.
// A macOS universal binary holds several CPUs' code: 'macho-universal:arm64+x64'.
export type BinFormat = 'elf-x64' | 'elf-arm64' | 'macho-x64' | 'macho-arm64' | 'pe-x64' | 'pe-arm64' | `macho-universal:${string}` | 'unknown';

const MACHO_CPU: Record<number, string> = { 0x01000007: 'x64', 0x0100000c: 'arm64' };

export function binFormat(head: Buffer): BinFormat {
  if (head.length >= 20 && head.readUInt32BE(0) === 0x7f454c46) {
    const machine = head.readUInt16LE(18);
    return machine === 0x3e ? 'elf-x64' : machine === 0xb7 ? 'elf-arm64' : 'unknown';
  }
  if (head.length >= 8 && head.readUInt32LE(0) === 0xfeedfacf) {
    const cpu = MACHO_CPU[head.readUInt32LE(4)];
    return cpu ? (`macho-${cpu}` as BinFormat) : 'unknown';
  }
  if (head.length >= 8 && head.readUInt32BE(0) === 0xcafebabe) {
    // fat_header, then fat_arch records of 20 bytes, big-endian.
    const n = head.readUInt32BE(4);
    const cpus: string[] = [];
    for (let i = 0; i < n && 8 + i * 20 + 4 <= head.length; i++) cpus.push(MACHO_CPU[head.readUInt32BE(8 + i * 20)] ?? 'other');
    return `macho-universal:${cpus.sort().join('+')}`;
  }
  if (head.length >= 64 && head.toString('latin1', 0, 2) === 'MZ') {
    const pe = head.readUInt32LE(0x3c);
    if (pe + 6 <= head.length && head.readUInt32LE(pe) === 0x00004550) {
      const machine = head.readUInt16LE(pe + 4);
      return machine === 0x8664 ? 'pe-x64' : machine === 0xaa64 ? 'pe-arm64' : 'unknown';
    }
  }
  return 'unknown';
}
