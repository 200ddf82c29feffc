/**
 * A printable form of the configuration for the start log: secrets print their mask, URLs print
 * with the password masked, and static destination headers print masked (spec §16.3).
 */
import type { AppConfig } from '@queuebox/core';
import { maskUrl } from './values.js';

const URL_KEYS = new Set(['url', 'baseUrl', 'tokenUrl', 'connectionUrl', 'servers']);
const SECRET_PARAM = /password|pwd|secret|token/i;

export function describeConfig(config: AppConfig): string {
  return JSON.stringify(
    config,
    function (this: unknown, key: string, value: unknown): unknown {
      if (typeof value === 'string' && URL_KEYS.has(key)) return maskUrl(value);
      if (isRecord(value) && (key === 'headers' || key === 'params' || key === 'extraParams')) {
        return Object.fromEntries(
          Object.entries(value).map(([name, v]) => [
            name,
            key === 'headers' || SECRET_PARAM.test(name) ? '***' : v,
          ]),
        );
      }
      return value;
    },
    2,
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
