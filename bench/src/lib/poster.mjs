/**
 * The peers' HTTP client: an undici Pool with keep-alive and no pipelining, `sockets`
 * connections (QueueBox's publisher is the same: one undici Pool per destination sized by
 * outbox.concurrency). Sends the same headers QueueBox sends that the sink reads.
 */
import { Pool } from 'undici';

export function createPoster(url, sockets) {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections: sockets, pipelining: 1 });
  async function post(payload, id, key) {
    const headers = { 'content-type': 'application/json', 'x-message-id': id };
    if (key !== null && key !== undefined) headers['x-message-key'] = key;
    const response = await pool.request({
      path: target.pathname,
      method: 'POST',
      headers,
      body: JSON.stringify(payload),
    });
    await response.body.dump();
    if (response.statusCode < 200 || response.statusCode > 299) {
      throw new Error(`sink answered ${response.statusCode}`);
    }
  }
  post.close = () => pool.close();
  return post;
}
