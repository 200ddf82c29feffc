/** Which parsed destinations and sources are `http`: every other kind is a broker's. */
import type { RawDestination, RawHttpDestination, RawHttpSource, RawSource } from './config.js';

export const isHttpDestination = (raw: RawDestination): raw is RawHttpDestination =>
  raw.type === 'http';
export const isHttpSource = (raw: RawSource): raw is RawHttpSource => raw.type === 'http';
