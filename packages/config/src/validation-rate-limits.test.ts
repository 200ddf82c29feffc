import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DB_ENV, loadYaml, problems } from '../test/load.js';

const load = (yaml: string, env: Record<string, string> = {}) =>
  loadYaml(yaml, { ...DB_ENV, ...env });

const withLimit = (limit: string, type = 'http'): string => {
  const body =
    type === 'http'
      ? 'type: http\n    baseUrl: https://partner.example'
      : 'type: rabbitmq\n    url: amqp://rabbit\n    exchange: events';
  return `destinations:\n  d:\n    ${body}\n    rateLimit: ${limit}\n`;
};

describe('destinations.<name>.rateLimit', () => {
  it('is off unless written', () => {
    const config = load('destinations:\n  d: {type: http, baseUrl: https://partner.example}\n');
    expect(config.destinations.d?.rateLimit).toBeNull();
  });

  it('takes a rate with a burst, a fraction of a token a second, and maxInFlight alone', () => {
    expect(
      load(withLimit('{perSecond: 50, burst: 10, maxInFlight: 4}')).destinations.d?.rateLimit,
    ).toEqual({
      perSecond: 50,
      burst: 10,
      maxInFlight: 4,
    });
    expect(load(withLimit('{perSecond: 0.5}', 'rabbitmq')).destinations.d?.rateLimit).toEqual({
      perSecond: 0.5,
      burst: 1,
      maxInFlight: null,
    });
    expect(load(withLimit('{maxInFlight: 2}')).destinations.d?.rateLimit).toEqual({
      perSecond: null,
      burst: null,
      maxInFlight: 2,
    });
  });

  it('defaults the burst to a tenth of a second of tokens, at least one', () => {
    const burst = (perSecond: number) =>
      load(withLimit(`{perSecond: ${perSecond}}`)).destinations.d?.rateLimit?.burst;
    expect(burst(50)).toBe(5);
    expect(burst(1000)).toBe(100);
    expect(burst(3)).toBe(1);
  });

  it('is set by variables as well', () => {
    const config = load('destinations:\n  d: {type: http, baseUrl: https://partner.example}\n', {
      QUEUEBOX_DESTINATIONS_D_RATELIMIT_PERSECOND: '12.5',
      QUEUEBOX_DESTINATIONS_D_RATELIMIT_MAXINFLIGHT: '3',
    });
    expect(config.destinations.d?.rateLimit).toEqual({
      perSecond: 12.5,
      burst: 2,
      maxInFlight: 3,
    });
  });

  it('names the key of each problem', () => {
    expect(problems(withLimit('{perSecond: 0}'))).toEqual([
      'destinations.d.rateLimit.perSecond: must be greater than 0',
    ]);
    expect(problems(withLimit('{perSecond: fast}'))).toEqual([
      "destinations.d.rateLimit.perSecond: 'fast' is not a number",
    ]);
    expect(problems(withLimit('{perSecond: 5, burst: 0.5}'))).toEqual([
      "destinations.d.rateLimit.burst: '0.5' is not a whole number",
    ]);
    expect(problems(withLimit('{maxInFlight: 0}'))).toEqual([
      'destinations.d.rateLimit.maxInFlight: must be greater than 0',
    ]);
    expect(problems(withLimit('{burst: 5}'))).toEqual([
      'destinations.d.rateLimit: limits nothing; set destinations.d.rateLimit.perSecond (publishes per second, with destinations.d.rateLimit.burst), destinations.d.rateLimit.maxInFlight (publishes at once), or both, or remove the block',
      'destinations.d.rateLimit.burst: needs destinations.d.rateLimit.perSecond: a burst is the tokens a rate saves up; set the rate or remove the burst',
    ]);
    expect(problems(withLimit('{}'))).toEqual([
      'destinations.d.rateLimit: limits nothing; set destinations.d.rateLimit.perSecond (publishes per second, with destinations.d.rateLimit.burst), destinations.d.rateLimit.maxInFlight (publishes at once), or both, or remove the block',
    ]);
    expect(problems(withLimit('{perSecnd: 5}'))).toEqual([
      'destinations.d.rateLimit.perSecnd: unknown key; did you mean perSecond?',
    ]);
  });

  it('loads the example of docs/configuration.md', () => {
    const doc = readFileSync(new URL('../../../docs/configuration.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('### Rate limits (`rateLimit`)'));
    const example = /```yaml\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    expect(load(example).destinations.partner?.rateLimit).toEqual({
      perSecond: 50,
      burst: 10,
      maxInFlight: 4,
    });
  });
});
