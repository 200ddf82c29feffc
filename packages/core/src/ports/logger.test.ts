import { describe, expect, it } from 'vitest';
import { LazyChildLogger, type LogFields, type Logger } from './logger.js';

/** A logger that records the children it makes and the lines written through them. */
function recording(): { logger: Logger; children: LogFields[]; lines: string[] } {
  const children: LogFields[] = [];
  const lines: string[] = [];
  const make = (bound: LogFields): Logger => ({
    debug: (m) => lines.push(`debug ${JSON.stringify(bound)} ${m}`),
    info: (m) => lines.push(`info ${JSON.stringify(bound)} ${m}`),
    warn: (m) => lines.push(`warn ${JSON.stringify(bound)} ${m}`),
    error: (m) => lines.push(`error ${JSON.stringify(bound)} ${m}`),
    child: (fields) => {
      children.push(fields);
      return make({ ...bound, ...fields });
    },
  });
  return { logger: make({}), children, lines };
}

describe('LazyChildLogger', () => {
  it('makes no child until a line is logged, then one, with its fields', () => {
    const { logger, children, lines } = recording();
    const lazy = new LazyChildLogger(logger, { correlationId: 'c-1' });
    expect(children).toEqual([]);
    lazy.warn('first');
    lazy.error('second');
    lazy.info('third');
    lazy.debug('fourth');
    expect(children).toEqual([{ correlationId: 'c-1' }]);
    expect(lines).toEqual([
      'warn {"correlationId":"c-1"} first',
      'error {"correlationId":"c-1"} second',
      'info {"correlationId":"c-1"} third',
      'debug {"correlationId":"c-1"} fourth',
    ]);
  });

  it('hands a grandchild the fields of both', () => {
    const { logger, lines } = recording();
    new LazyChildLogger(logger, { source: 'stripe' }).child({ messageId: 'm-1' }).warn('x');
    expect(lines).toEqual(['warn {"source":"stripe","messageId":"m-1"} x']);
  });
});
