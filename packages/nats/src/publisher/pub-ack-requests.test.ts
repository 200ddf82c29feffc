import { headers as natsHeaders, type Msg, type MsgHdrs } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { NO_RESPONDERS, answerOf } from './pub-ack-requests.js';

/** A reply as the client hands it to a subscription: the bytes and, for a status, headers. */
function reply(text: string, headers?: MsgHdrs): Msg {
  const data = new TextEncoder().encode(text);
  return { data, headers, string: () => text } as unknown as Msg;
}

describe('answerOf: the answer to a JetStream publish', () => {
  it('reads a PubAck, with and without duplicate', () => {
    expect(answerOf(reply('{"stream":"ORDERS","seq":7}'))).toEqual({
      kind: 'ack',
      duplicate: false,
    });
    expect(answerOf(reply('{"stream":"ORDERS","seq":7,"duplicate":true}'))).toEqual({
      kind: 'ack',
      duplicate: true,
    });
    expect(answerOf(reply('{"stream":"ORDERS","domain":"hub","seq":8}'))).toEqual({
      kind: 'ack',
      duplicate: false,
    });
  });

  it("reads the stream's refusal, with its description and code", () => {
    expect(
      answerOf(
        reply(
          '{"error":{"code":400,"err_code":10071,"description":"wrong last sequence: 1"},"stream":"ORDERS","seq":0}',
        ),
      ),
    ).toEqual({ kind: 'refused', error: 'the stream refused it: wrong last sequence: 1 (400)' });
    expect(answerOf(reply('{"error":{}}'))).toEqual({
      kind: 'refused',
      error: 'the stream refused it: no reason given',
    });
  });

  it('takes a 503 status without a body as no responders, but not one with a body', () => {
    expect(answerOf(reply('', natsHeaders(503, 'No Responders')))).toEqual({
      kind: 'refused',
      error: NO_RESPONDERS,
    });
    expect(answerOf(reply('{"stream":"S","seq":1}', natsHeaders(503, 'No Responders')))).toEqual({
      kind: 'ack',
      duplicate: false,
    });
  });

  it('refuses anything else instead of calling it delivered', () => {
    for (const text of ['', 'not json', '[]', 'null', '7', '{"seq":1}', '{"stream":""}']) {
      expect(answerOf(reply(text))).toEqual({
        kind: 'refused',
        error: 'the answer to the publish was not a JetStream PubAck',
      });
    }
  });
});
