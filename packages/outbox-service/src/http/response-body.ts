/**
 * Response bodies are always consumed or destroyed: an unread body holds its socket, and the
 * pool then opens new connections until it runs out.
 */

/** What undici's response body offers; kept structural so tests and callers need no undici types. */
export type ResponseBody = AsyncIterable<Uint8Array>;

/**
 * Reads at most a little more than `maxBytes`. A longer body is destroyed (closing its socket)
 * rather than downloaded; a body that breaks off (timeout, reset) yields what arrived.
 */
export async function readBodyPrefix(body: ResponseBody, maxBytes: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.byteLength;
      // Leaving the loop destroys the stream, which is what a body this long deserves.
      if (size > maxBytes) break;
    }
  } catch {
    // Report the status with whatever part of the body arrived.
  }
  return Buffer.concat(chunks, size);
}
