/**
 * The kit config lends the broker packages (core's `ConfigKit` port): each building block is the
 * schema config itself uses for such a key, so a contributed key parses, defaults, words its
 * problems and shows in the generated docs exactly as a key written here does.
 */
import type { ConfigKey, ConfigKit } from '@queuebox/core';
import { v } from './kit.js';
import { nonBlank, nonEmptyList, rule } from './checks.js';
import {
  bool,
  int,
  integer,
  list,
  ms,
  oneOf,
  optOneOf,
  optSecret,
  optText,
  str,
  text,
} from './scalars.js';

const key = (schema: v.GenericSchema): ConfigKey => schema as unknown as ConfigKey;

/** The schema behind a contributed key. */
export const keySchema = (configKey: ConfigKey): v.GenericSchema =>
  configKey as unknown as v.GenericSchema;

export const configKit: ConfigKit = {
  text: key(text),
  optText: key(optText),
  nonBlank: key(nonBlank),
  optSecret: key(optSecret),
  addressFrom: key(optOneOf(['aggregate_type', 'topic', 'key'])),
  str: (def) => key(str(def)),
  nonBlankStr: (def) => key(v.optional(nonBlank, def)),
  bool: (def) => key(bool(def)),
  int: (def, min) => key(int(def, { min })),
  ms: (def, min) => key(ms(def, min)),
  oneOf: (values, def) => key(oneOf(values, def)),
  checkedText: (problem) => key(v.pipe(text, rule<string>(problem))),
  checkedMs: (def, accepts, message) =>
    key(v.optional(v.pipe(integer({ ms: true }), v.check(accepts, message)), String(def))),
  nonEmptyList: (entry) => key(v.pipe(list(true), nonEmptyList(entry))),
};
