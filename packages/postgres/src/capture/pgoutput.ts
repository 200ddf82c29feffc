import type { ChangeKind } from '@queuebox/core';

/**
 * The few bytes of the replication protocol capture reads (PostgreSQL's "Streaming Replication
 * Protocol" and "Logical Replication Message Formats", pgoutput protocol version 1). Capture
 * only wakes, so it reads a message's type and relation, never the row: a pgoutput insert of a
 * large payload costs one byte compare here.
 */

/** Microseconds from the Unix epoch to PostgreSQL's epoch (2000-01-01). */
const PG_EPOCH_MICROS = 946_684_800_000_000n;

/** One CopyData message of the stream, as the server sent it. */
export type ServerMessage =
  | { readonly type: 'data'; readonly walStart: bigint; readonly payload: Buffer }
  | { readonly type: 'keepalive'; readonly walEnd: bigint; readonly replyRequested: boolean }
  | { readonly type: 'other' };

export function parseServerMessage(message: Buffer): ServerMessage {
  // XLogData: 'w', start LSN, end-of-WAL LSN, send time, then the pgoutput message.
  if (message[0] === 0x77 && message.length >= 25) {
    return { type: 'data', walStart: message.readBigUInt64BE(1), payload: message.subarray(25) };
  }
  // Primary keepalive: 'k', end-of-WAL LSN, send time, reply-requested flag.
  if (message[0] === 0x6b && message.length >= 18) {
    return {
      type: 'keepalive',
      walEnd: message.readBigUInt64BE(1),
      replyRequested: message[17] === 1,
    };
  }
  return { type: 'other' };
}

/**
 * A standby status update: everything up to `lsn` is written, flushed and applied (capture
 * keeps nothing, so the slot may let go of it at once), and, with `replyRequested`, a request
 * that the server answer with a keepalive, which is how the stream's liveness is checked.
 */
export function statusUpdate(lsn: bigint, nowMs: number, replyRequested: boolean): Buffer {
  const buffer = Buffer.alloc(34);
  buffer[0] = 0x72; // 'r'
  buffer.writeBigUInt64BE(lsn, 1);
  buffer.writeBigUInt64BE(lsn, 9);
  buffer.writeBigUInt64BE(lsn, 17);
  buffer.writeBigInt64BE(BigInt(Math.floor(nowMs)) * 1000n - PG_EPOCH_MICROS, 25);
  buffer[33] = replyRequested ? 1 : 0;
  return buffer;
}

/**
 * Turns pgoutput messages into changes of one table. Relations are announced ('R') before
 * their first change in each session, so a change of a relation never announced is unreadable
 * (and wakes, the conservative answer of spec §10.1). Changes of other tables of the
 * publication are none of capture's business.
 */
export class OutboxChangeDecoder {
  private readonly outbox = new Set<number>();
  private readonly others = new Set<number>();

  constructor(
    private readonly schema: string,
    private readonly table: string,
  ) {}

  /** The change of the outbox table this message is, or null when it is none. */
  decode(payload: Buffer): ChangeKind | null {
    switch (payload[0]) {
      case 0x52: // 'R' relation
        return this.relation(payload);
      case 0x49: // 'I' insert
        return this.change(payload, 'insert');
      case 0x55: // 'U' update
        return this.change(payload, 'update');
      case 0x44: // 'D' delete
        return this.change(payload, 'delete');
      case 0x42: // 'B' begin
      case 0x43: // 'C' commit
      case 0x4f: // 'O' origin
      case 0x59: // 'Y' type
      case 0x54: // 'T' truncate: no row to deliver
      case 0x4d: // 'M' logical decoding message
        return null;
      default:
        return 'unreadable';
    }
  }

  private relation(payload: Buffer): ChangeKind | null {
    if (payload.length < 7) return 'unreadable';
    const oid = payload.readUInt32BE(1);
    const schemaEnd = payload.indexOf(0, 5);
    const tableEnd = schemaEnd < 0 ? -1 : payload.indexOf(0, schemaEnd + 1);
    if (tableEnd < 0) return 'unreadable';
    // pgoutput sends an empty namespace for pg_catalog.
    const schema = payload.toString('utf8', 5, schemaEnd) || 'pg_catalog';
    const table = payload.toString('utf8', schemaEnd + 1, tableEnd);
    this.outbox.delete(oid);
    this.others.delete(oid);
    if (schema === this.schema && table === this.table) this.outbox.add(oid);
    else this.others.add(oid);
    return null;
  }

  private change(payload: Buffer, kind: ChangeKind): ChangeKind | null {
    if (payload.length < 5) return 'unreadable';
    const oid = payload.readUInt32BE(1);
    if (this.outbox.has(oid)) return kind;
    return this.others.has(oid) ? null : 'unreadable';
  }
}
