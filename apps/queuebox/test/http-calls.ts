/** The HTTP calls tests make to a running QueueBox, the way a client makes them. */

/** POSTs `body` as JSON (a string is sent as it is). */
export function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** The Prometheus text of `/metrics`. */
export async function scrapeText(base: string): Promise<string> {
  return (await fetch(`${base}/metrics`)).text();
}
