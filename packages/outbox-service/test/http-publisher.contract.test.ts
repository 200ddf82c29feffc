/**
 * The HTTP publisher runs the publisher contract of @queuebox/testing against the real HTTP sink
 * there: `refuse` answers 503, `stall` takes the request and never answers.
 */
import type { HttpDestinationConfig } from '@queuebox/core';
import { createHttpPublisher } from '@queuebox/outbox-service';
import { startHttpSink, type SinkHandler } from '@queuebox/testing';
import { publisherContract, type ReceivedMessage } from '@queuebox/testing/contracts';

const accept: SinkHandler = (_request, response) => {
  response.writeHead(200);
  response.end();
};
const refuse: SinkHandler = (_request, response) => {
  response.writeHead(503);
  response.end('busy');
};
const stall: SinkHandler = () => undefined;

publisherContract({
  label: 'HTTP publisher on the HTTP sink',
  async open(options) {
    const sink = await startHttpSink(accept);
    const timeoutMs = options.timeoutMs ?? 5_000;
    const destination: HttpDestinationConfig = {
      type: 'http',
      baseUrl: sink.url,
      path: '/events',
      timeoutMs,
      auth: null,
      headers: options.staticHeaders ?? {},
      transform: null,
    };
    const publisher = createHttpPublisher({
      config: {
        destinations: { receiver: destination },
        http: { maxErrorBodyBytes: 2048, blockPrivateAddresses: false },
        outbox: { concurrency: 4 },
      },
    });
    return {
      publisher,
      destination: 'receiver',
      timeoutMs,
      received: () =>
        Promise.resolve(
          sink.requests.map((request): ReceivedMessage => ({
            body: request.body,
            messageId: request.headers['x-message-id'] as string | undefined,
            headers: Object.fromEntries(
              Object.entries(request.headers).map(([name, value]) => [
                name,
                Array.isArray(value) ? value.join(', ') : (value ?? ''),
              ]),
            ),
          })),
        ),
      refuse: () => Promise.resolve(sink.handle(refuse)),
      stall: () => Promise.resolve(sink.handle(stall)),
      accept: () => Promise.resolve(sink.handle(accept)),
      close: () => sink.close(),
    };
  },
});
