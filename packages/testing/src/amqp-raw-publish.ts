/**
 * Publishes AMQP messages whose header table holds signed 64-bit integers (`l`) of any value.
 * amqplib encodes a JavaScript number, so it cannot send 2^53 + 1 or 2^63 − 1 exactly; this
 * writes the basic.publish, content-header and body frames itself on a channel amqplib opened
 * (the handshake stays amqplib's), so a test can check that a source keeps every digit.
 */
import { connect } from 'amqplib';

const FRAME_END = 0xce;

/** Sends one message to `queue` through the default exchange; resolves once the broker has it. */
export async function publishWithInt64Headers(
  url: string,
  queue: string,
  body: string,
  headers: Readonly<Record<string, bigint>>,
): Promise<void> {
  const model = await connect(url);
  try {
    const channel = await model.createChannel();
    const number = (channel as unknown as { ch: number }).ch;
    const stream = (model.connection as unknown as { stream: NodeJS.WritableStream }).stream;
    const content = Buffer.from(body, 'utf8');
    stream.write(
      Buffer.concat([
        frame(1, number, publishMethod(queue)),
        frame(2, number, contentHeader(content.length, headers)),
        frame(3, number, content),
      ]),
    );
    // Frames of one channel are handled in order: once this answers, the message is queued.
    await channel.checkQueue(queue);
    await channel.close();
  } finally {
    await model.close();
  }
}

function frame(type: number, channel: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(7);
  head.writeUInt8(type, 0);
  head.writeUInt16BE(channel, 1);
  head.writeUInt32BE(payload.length, 3);
  return Buffer.concat([head, payload, Buffer.from([FRAME_END])]);
}

function shortString(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  return Buffer.concat([Buffer.from([bytes.length]), bytes]);
}

/** basic.publish (60, 40) to the default exchange with `queue` as the routing key. */
function publishMethod(queue: string): Buffer {
  const head = Buffer.alloc(6);
  head.writeUInt16BE(60, 0);
  head.writeUInt16BE(40, 2);
  head.writeUInt16BE(0, 4);
  return Buffer.concat([head, shortString(''), shortString(queue), Buffer.from([0])]);
}

/** The basic content header with only the `headers` property (flag bit 13). */
function contentHeader(bodySize: number, headers: Readonly<Record<string, bigint>>): Buffer {
  const fields = Object.entries(headers).map(([name, value]) => {
    const number = Buffer.alloc(9);
    number.write('l', 0, 'latin1');
    number.writeBigInt64BE(value, 1);
    return Buffer.concat([shortString(name), number]);
  });
  const table = Buffer.concat(fields);
  const head = Buffer.alloc(18);
  head.writeUInt16BE(60, 0);
  head.writeUInt16BE(0, 2);
  head.writeBigUInt64BE(BigInt(bodySize), 4);
  head.writeUInt16BE(0x2000, 12);
  head.writeUInt32BE(table.length, 14);
  return Buffer.concat([head, table]);
}
