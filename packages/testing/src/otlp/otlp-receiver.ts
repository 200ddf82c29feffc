/**
 * A real OTLP/HTTP trace receiver for tests (dev only): `POST /v1/traces` on 127.0.0.1 and a free
 * port, taking `application/x-protobuf` or `application/json` (gzip too), answering 200 with an
 * empty `ExportTraceServiceResponse` as a collector does, and keeping every span decoded.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { decodeJsonTraces, decodeProtobufTraces, type OtlpSpan } from './otlp-traces.js';

export interface OtlpExport {
  readonly contentType: string;
  readonly spans: readonly OtlpSpan[];
}

export interface OtlpReceiver {
  /** The base URL: `OTEL_EXPORTER_OTLP_ENDPOINT` (the exporter appends `/v1/traces`). */
  readonly url: string;
  readonly exports: OtlpExport[];
  /** Every span received so far, in arrival order. */
  spans(): OtlpSpan[];
  /** Bodies that could not be decoded, with why: a test fails on any. */
  readonly errors: string[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const exports: OtlpExport[] = [];
  const errors: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const contentType = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
      try {
        let body = Buffer.concat(chunks);
        if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
        const json = contentType === 'application/json';
        const spans = json ? decodeJsonTraces(body.toString('utf8')) : decodeProtobufTraces(body);
        exports.push({ contentType, spans });
        res.writeHead(200, { 'content-type': json ? 'application/json' : contentType });
        res.end(json ? '{}' : Buffer.alloc(0));
      } catch (error: unknown) {
        errors.push(error instanceof Error ? error.message : String(error));
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exports,
    spans: () => exports.flatMap((e) => e.spans),
    errors,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
