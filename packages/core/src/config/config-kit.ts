/**
 * The port through which a broker package contributes its configuration block without
 * importing `@queuebox/config`: config lends a `ConfigKit` (the building blocks of a key, each
 * with config's own parsing and texts) and the rules a block's checks report to, and the broker's
 * descriptor builds its destination and source keys, their rules, their assembly and their key
 * texts from them. The keys stay opaque here, so core knows no schema library.
 */
import type {
  BrokerSourceCommon,
  DestinationCommon,
  DestinationConfig,
  SourceConfig,
} from './app-config.js';

/** One key of a block, built by the kit; only config reads what is inside. */
export interface ConfigKey {
  readonly __configKey: unique symbol;
}

export interface ConfigKit {
  /** Required text. */
  readonly text: ConfigKey;
  /** Text that is null unless written. */
  readonly optText: ConfigKey;
  /** Required text that is not blank. */
  readonly nonBlank: ConfigKey;
  /** A secret (`file:<path>` read once) that is null unless written. */
  readonly optSecret: ConfigKey;
  /** `<key>From`: the row column (`aggregate_type`, `topic`, `key`) that wins over the template. */
  readonly addressFrom: ConfigKey;
  /** Text with a default. */
  str(def: string): ConfigKey;
  /** Text that is not blank, with a default. */
  nonBlankStr(def: string): ConfigKey;
  /** `true` or `false`, with a default. */
  bool(def: boolean): ConfigKey;
  /** A whole number with a default, at least `min`. */
  int(def: number, min: number): ConfigKey;
  /** `…Ms` with a default, at least `min` (1 unless given). */
  ms(def: number, min?: number): ConfigKey;
  /** One of `values` in exact case, with a default. */
  oneOf(values: readonly [string, ...string[]], def: string): ConfigKey;
  /** Required text, refused with the text `problem` returns (undefined: accepted). */
  checkedText(problem: (value: string) => string | undefined): ConfigKey;
  /** `…Ms` with a default that must also pass `accepts`, else `message`. */
  checkedMs(def: number, accepts: (value: number) => boolean, message: string): ConfigKey;
  /** A required list of text; one value is split on commas; `entry` names an item in the texts. */
  nonEmptyList(entry: string): ConfigKey;
}

export type ConfigPath = readonly (string | number)[];

/** What a block's rule across its keys reports to; it reads only values without a problem. */
export interface ConfigRules {
  add(path: ConfigPath, message: string): void;
  /** A problem at or below `path`, or a block above it that could not be read. */
  has(path: ConfigPath): boolean;
  /** `['destinations', 'a', 'username']` as the texts write it. */
  display(path: ConfigPath): string;
  /** Reports blank text, unless the key already has a problem. */
  requireText(path: ConfigPath, value: unknown): void;
}

/** The texts of one key in docs/configuration.md; `null` leaves the key out of its table. */
export interface ConfigKeyDoc {
  readonly rule: string;
  /** Where the schema cannot say it: the key column, the type, the default. */
  readonly key?: string;
  readonly type?: string;
  readonly default?: string;
}

/** A parsed block: its keys by name, with the kit's values (text, numbers, secrets, lists). */
export type ConfigValues = Readonly<Record<string, unknown>>;

/** The keys of one kind of destination or source that are its own. */
export interface ConfigKindBlock {
  /** Its own keys in order; config adds the keys every kind shares after them. */
  readonly keys: Readonly<Record<string, ConfigKey>>;
  /** Rules across its keys, run on a block whose own keys could be read. */
  check?(block: ConfigValues, path: ConfigPath, rules: ConfigRules): void;
  /** Values that replace parsed ones in the assembled config (a trimmed URL, a default). */
  assemble?(block: ConfigValues): ConfigValues;
  /** Its key texts in docs/configuration.md. */
  readonly docs?: Readonly<Record<string, ConfigKeyDoc | null>>;
}

/** A broker's configuration: the keys of its destinations and of its sources. */
export interface BrokerConfigBlock {
  readonly destination: ConfigKindBlock;
  readonly source: ConfigKindBlock;
}

/**
 * The keys a broker's block must write for its config type: every key but `type` and those
 * every kind shares. A block's keys `satisfies Record<OwnDestinationKeys<...>, ConfigKey>`, so
 * a key added to one and not the other fails the typecheck.
 */
export type OwnDestinationKeys<T extends DestinationConfig> = Exclude<
  keyof T,
  'type' | keyof DestinationCommon
>;
export type OwnSourceKeys<T extends SourceConfig> = Exclude<
  keyof T,
  'type' | keyof BrokerSourceCommon
>;
