import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';

function capture(format: 'text' | 'json') {
  const lines: string[] = [];
  const logger = createLogger({
    format,
    level: 'info',
    destination: { write: (l) => lines.push(l) },
  });
  return { logger, output: () => lines.join('') };
}

// What a sender can put into an event type (the relayed topic) or a key.
const FORGED =
  'order.paid\n2026-01-01T00:00:00.000Z INFO  [main] queuebox - forged\r\u2028x\u0000\u0085';

describe('app logger: one record is one line', () => {
  it('writes a line break in a context value or the message as an escape in the text layout', () => {
    const { logger, output } = capture('text');
    logger.child({ topic: FORGED, messageId: 'm-1' }).error(`No route matches topic '${FORGED}'`);
    const text = output();
    expect(text.endsWith('\n')).toBe(true);
    for (const char of ['\n', '\r', '\u2028', '\u0000', '\u0085'])
      expect(text.slice(0, -1)).not.toContain(char);
    expect(text).toContain(
      'topic=order.paid\\n2026-01-01T00:00:00.000Z INFO  [main] queuebox - forged\\r\\u2028x\\u0000\\u0085 messageId=m-1',
    );
    expect(text).toContain("- No route matches topic 'order.paid\\n2026-01-01");
  });

  it('keeps one JSON object per line, with the value intact', () => {
    const { logger, output } = capture('json');
    logger.warn(`topic '${FORGED}'`, { topic: FORGED });
    const lines = output()
      .split('\n')
      .filter((line) => line !== '');
    expect(lines).toHaveLength(1);
    const record = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(record.topic).toBe(FORGED);
    expect(record.message).toBe(`topic '${FORGED}'`);
  });

  it('leaves ordinary text alone', () => {
    const { logger, output } = capture('text');
    logger.info('Shutting down QueueBox...', { source: 'stripe', attempt: 2 });
    expect(output()).toMatch(
      / INFO {2}\[main\] queuebox source=stripe attempt=2 - Shutting down QueueBox\.\.\.\n$/,
    );
  });
});
