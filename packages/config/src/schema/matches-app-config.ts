/**
 * AppConfig lives in core, which every package imports and which cannot depend on this package,
 * so the schema's inferred output is held against it here at compile time: a key added to one and
 * not the other, or a value of another type, fails the typecheck. Blocks the loader rebuilds
 * (durations in ms, defaults from other keys) are compared key by key. A broker's own keys are
 * held against its config type in its package, where its block is written.
 */
import type { AppConfig, DestinationConfig, SourceConfig } from '@queuebox/core';
import type { RawConfig, RawHttpDestination, RawHttpSource } from './config.js';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;
type SameKeys<A, B> = Same<keyof A, keyof B>;
type Kind<U, K> = Extract<U, { type: K }>;
/** Keys the loader renames when it converts a value (`initialDelay` → `initialDelayMs`). */
type Renamed = 'initialDelay' | 'initialDelayMs';

export type SchemaMatchesAppConfig = [
  Assert<Same<RawConfig['server'], AppConfig['server']>>,
  Assert<Same<RawConfig['http'], AppConfig['http']>>,
  Assert<Same<Omit<RawConfig['outbox'], 'capture'>, Omit<AppConfig['outbox'], 'capture'>>>,
  Assert<
    Same<
      Omit<RawConfig['outbox']['capture'], 'connection'>,
      Omit<AppConfig['outbox']['capture'], 'connection'>
    >
  >,
  Assert<
    SameKeys<
      RawConfig['outbox']['capture']['connection'],
      AppConfig['outbox']['capture']['connection']
    >
  >,
  Assert<SameKeys<RawConfig['inbox']['relay'], AppConfig['inbox']['relay']>>,
  Assert<SameKeys<RawConfig['admin'], AppConfig['admin']>>,
  Assert<SameKeys<RawConfig['database'], Omit<AppConfig['database'], 'connection'>>>,
  Assert<Same<RawConfig['database']['columnMapping'], AppConfig['database']['columnMapping']>>,
  Assert<SameKeys<RawConfig['routes'][number], AppConfig['routes'][number]>>,
  Assert<SameKeys<RawConfig['retention'], AppConfig['retention']>>,
  Assert<SameKeys<RawHttpDestination, Kind<DestinationConfig, 'http'>>>,
  Assert<SameKeys<Omit<RawHttpSource, Renamed>, Omit<Kind<SourceConfig, 'http'>, Renamed>>>,
];
