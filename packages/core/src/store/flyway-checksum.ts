/**
 * Flyway's checksum of a migration file: CRC-32 (IEEE, as `java.util.zip.CRC32`) over the UTF-8
 * bytes of each line read by `BufferedReader.readLine()` — so without line terminators, which
 * makes it independent of LF/CRLF — with a byte-order mark dropped from the first line, stored as
 * a signed 32-bit integer. Written here rather than taken from a dependency: it is twenty lines.
 */

const TABLE = buildTable();

function buildTable(): Uint32Array {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
}

/** Continues a CRC-32 over `bytes`; start with 0. Returns the unsigned value. */
export function crc32(bytes: Uint8Array, previous = 0): number {
  let crc = ~previous >>> 0;
  for (const byte of bytes) crc = (TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8)) >>> 0;
  return ~crc >>> 0;
}

/** The value Flyway writes into `flyway_schema_history.checksum` for a file with this text. */
export function flywayChecksum(text: string): number {
  const encoder = new TextEncoder();
  const lines = text.split(/\r\n|\r|\n/);
  let crc = 0;
  lines.forEach((line, index) => {
    const content = index === 0 && line.startsWith('\uFEFF') ? line.slice(1) : line;
    crc = crc32(encoder.encode(content), crc);
  });
  return crc | 0;
}
