/**
 * Just enough of the protobuf wire format (https://protobuf.dev/programming-guides/encoding/) to
 * read the OTLP trace messages: varints, 64- and 32-bit fixed fields and length-delimited fields.
 * A message is read as a list of fields; the OTLP decoder picks the numbers it knows.
 */

export type WireField =
  | { readonly number: number; readonly type: 'varint'; readonly value: bigint }
  | { readonly number: number; readonly type: 'fixed64'; readonly bytes: Uint8Array }
  | { readonly number: number; readonly type: 'bytes'; readonly bytes: Uint8Array }
  | { readonly number: number; readonly type: 'fixed32'; readonly bytes: Uint8Array };

/** Every field of one message, in wire order; throws on a truncated or unknown wire type. */
export function readFields(bytes: Uint8Array): WireField[] {
  const fields: WireField[] = [];
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (at >= bytes.length) throw new Error('protobuf: truncated varint');
      const byte = bytes[at++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
    }
  };
  const take = (length: number): Uint8Array => {
    if (at + length > bytes.length) throw new Error('protobuf: truncated field');
    const slice = bytes.subarray(at, at + length);
    at += length;
    return slice;
  };
  while (at < bytes.length) {
    const key = varint();
    const number = Number(key >> 3n);
    const wireType = Number(key & 7n);
    switch (wireType) {
      case 0:
        fields.push({ number, type: 'varint', value: varint() });
        break;
      case 1:
        fields.push({ number, type: 'fixed64', bytes: take(8) });
        break;
      case 2:
        fields.push({ number, type: 'bytes', bytes: take(Number(varint())) });
        break;
      case 5:
        fields.push({ number, type: 'fixed32', bytes: take(4) });
        break;
      default:
        throw new Error(`protobuf: wire type ${wireType} is not supported`);
    }
  }
  return fields;
}

export function text(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

export function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

export function double(bytes: Uint8Array): number {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).readDoubleLE(0);
}

export function uint64(bytes: Uint8Array): bigint {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).readBigUInt64LE(0);
}

/** A varint read as a signed 64-bit integer (protobuf `int64`). */
export function int64(value: bigint): bigint {
  return BigInt.asIntN(64, value);
}
