import { describe, expect, it } from 'vitest';
import { bodyTooLargeJson, readCappedBody } from './capped-body.js';

const request = (body: RequestInit['body'], headers: Record<string, string> = {}) =>
  new Request('http://localhost/x', {
    method: 'POST',
    body,
    headers,
    ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
  });

function stream(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

describe('readCappedBody', () => {
  it('returns the exact bytes of a body under the cap', async () => {
    const bytes = new Uint8Array([0x7b, 0xff, 0x00, 0x7d]);
    expect(await readCappedBody(request(bytes), 4)).toEqual({ ok: true, bytes });
    const joined = await readCappedBody(
      request(stream([new Uint8Array([1, 2]), new Uint8Array([3])])),
      3,
    );
    expect(joined).toEqual({ ok: true, bytes: new Uint8Array([1, 2, 3]) });
  });

  it('returns no bytes for a request without a body', async () => {
    expect(await readCappedBody(request(null), 0)).toEqual({ ok: true, bytes: new Uint8Array(0) });
  });

  it('refuses a declared length over the cap without reading', async () => {
    let pulled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled = true;
        controller.enqueue(new Uint8Array(1));
        controller.close();
      },
    });
    expect(await readCappedBody(request(body, { 'Content-Length': '11' }), 10)).toEqual({
      ok: false,
    });
    expect(pulled).toBe(false);
  });

  it('refuses a streamed body once the count passes the cap', async () => {
    expect(
      await readCappedBody(request(stream([new Uint8Array(6), new Uint8Array(5)])), 10),
    ).toEqual({ ok: false });
    expect(
      await readCappedBody(request(stream([new Uint8Array(6), new Uint8Array(4)])), 10),
    ).toMatchObject({ ok: true });
  });

  it('formats the 413 body as the app does', () => {
    expect(bodyTooLargeJson(1048576)).toBe('{"error":"Request body exceeds 1048576 bytes"}');
  });
});
