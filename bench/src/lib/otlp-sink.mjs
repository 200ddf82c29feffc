/**
 * A stand-in OTLP/HTTP collector for the tracing scenario: takes `POST /v1/traces`, answers 200
 * at once and keeps the bodies; the spans are decoded (by the test kit's decoder) only after the
 * run, so the bench process spends nothing on them while QueueBox is measured.
 */
import { createServer } from 'node:http';
import { decodeProtobufTraces } from '@queuebox/testing';

export async function startOtlpSink() {
  const bodies = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks));
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    /** Requests, bytes and spans received, with the spans counted by name. */
    summary() {
      const byName = {};
      let spans = 0;
      for (const body of bodies) {
        for (const span of decodeProtobufTraces(body)) {
          spans++;
          const family = span.name.split(' ')[0];
          byName[family] = (byName[family] ?? 0) + 1;
        }
      }
      const bytes = bodies.reduce((sum, b) => sum + b.length, 0);
      return { requests: bodies.length, bytes, spans, byName };
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
