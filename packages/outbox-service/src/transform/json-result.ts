/**
 * Converts what jsonata returns into plain JSON (spec §5.4 result conversion). jsonata hands back
 * `undefined` for "no result", arrays that carry internal flags (`sequence`, `keepSingleton`,
 * `outerWrapper`, `tupleStream`) and may return functions; publishers serialise the value and
 * the admin test prints it, so only plain JSON leaves the engine.
 */
import { setOwn, type Json, type TransformOutcome } from '@queuebox/core';

/** Carries the path to the offending value up the recursion, built only when something fails. */
class NotJsonError extends Error {
  readonly path: string[] = [];

  constructor(readonly what: string) {
    super(what);
  }
}

export function toJsonOutcome(value: unknown): TransformOutcome {
  try {
    return { ok: true, value: toJson(value) };
  } catch (error: unknown) {
    if (error instanceof NotJsonError) {
      return {
        ok: false,
        reason: `The transform result at $${error.path.join('')} is ${error.what}, which is not JSON`,
      };
    }
    // A result nested deep enough to exhaust the stack is not something a destination wants.
    if (error instanceof RangeError) {
      return { ok: false, reason: 'The transform result is nested too deeply to convert to JSON' };
    }
    throw error;
  }
}

function toJson(value: unknown): Json {
  if (value === undefined || value === null) return null;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw new NotJsonError(String(value));
      return value;
    case 'object':
      return Array.isArray(value) ? arrayToJson(value) : objectToJson(value);
    case 'function':
      throw new NotJsonError('a function');
    default:
      throw new NotJsonError(`a ${typeof value}`);
  }
}

/** A fresh array drops jsonata's flag properties; a missing element becomes null, as in JSON.stringify. */
function arrayToJson(items: readonly unknown[]): Json[] {
  const result: Json[] = new Array<Json>(items.length);
  let index = 0;
  try {
    for (; index < items.length; index++) result[index] = toJson(items[index]);
  } catch (error: unknown) {
    if (error instanceof NotJsonError) error.path.unshift(`[${index}]`);
    throw error;
  }
  return result;
}

function objectToJson(value: object): Json {
  // Lambdas and built-in functions reach us as objects flagged by jsonata, not as JS functions.
  const flags = value as { _jsonata_lambda?: unknown; _jsonata_function?: unknown };
  if (flags._jsonata_lambda === true || flags._jsonata_function === true) {
    throw new NotJsonError('a function');
  }
  const result: Record<string, Json> = {};
  let name = '';
  try {
    for (const [key, member] of Object.entries(value)) {
      name = key;
      // An absent value (a path that found nothing) leaves the key out, as JSON.stringify would.
      if (member === undefined) continue;
      const converted = toJson(member);
      // A payload key named `__proto__` must stay data, never become the prototype.
      if (key === '__proto__') {
        setOwn(result, key, converted);
      } else {
        result[key] = converted;
      }
    }
  } catch (error: unknown) {
    if (error instanceof NotJsonError) error.path.unshift(`.${name}`);
    throw error;
  }
  return result;
}
