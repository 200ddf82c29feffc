/**
 * Reads a request body under a byte cap (spec §7.5 step 3, §11.6). A declared Content-Length
 * over the cap is refused before a byte is read; a body without a length (chunked) is counted
 * while it streams and refused as soon as the count passes the cap, so a sender cannot make
 * QueueBox buffer more than the cap by leaving the length out.
 */

export type CappedBody = { readonly ok: true; readonly bytes: Uint8Array } | { readonly ok: false };

const TOO_LARGE: CappedBody = { ok: false };

export async function readCappedBody(request: Request, maxBytes: number): Promise<CappedBody> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) {
    await request.body?.cancel().catch(() => undefined);
    return TOO_LARGE;
  }
  const stream = request.body;
  if (stream === null) return { ok: true, bytes: new Uint8Array(0) };
  // A request body is bytes; the Fetch typings leave the chunk type open.
  const reader = (stream as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      // Stop reading: the rest of the body is never buffered.
      await reader.cancel().catch(() => undefined);
      return TOO_LARGE;
    }
    chunks.push(value);
  }
  return { ok: true, bytes: concat(chunks, total) };
}

function concat(chunks: readonly Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1 && chunks[0] !== undefined) return chunks[0];
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** The 413 body of spec §11.1, the same text the app's Content-Length check sends. */
export function bodyTooLargeJson(maxBytes: number): string {
  return JSON.stringify({ error: `Request body exceeds ${maxBytes} bytes` });
}
