/**
 * The configuration blocks the brokers contribute (core's `BrokerDescriptor.config`), built once
 * per descriptor from config's kit. Config reads a broker's kind, keys, rules and texts only from
 * here, so it names no broker; the app hands it the registry's descriptors.
 */
import type {
  BrokerAddressRules,
  BrokerConfigBlock,
  BrokerDescriptor,
  ConfigKindBlock,
} from '@queuebox/core';
import type { v } from './kit.js';
import { configKit, keySchema } from './config-kit.js';

export interface ContributedKind {
  /** The destination and source `type`. */
  readonly name: string;
  readonly address: BrokerAddressRules;
  readonly block: BrokerConfigBlock;
}

/** What a load needs of a broker: the descriptor's name, address rules and block. */
export type BrokerConfigSource = Pick<BrokerDescriptor, 'name' | 'address' | 'config'>;

const built = new WeakMap<BrokerConfigSource, ContributedKind>();

export function contributedKinds(
  brokers: readonly BrokerConfigSource[],
): readonly ContributedKind[] {
  return brokers.map((broker) => {
    let kind = built.get(broker);
    if (kind === undefined) {
      kind = { name: broker.name, address: broker.address, block: broker.config(configKit) };
      built.set(broker, kind);
    }
    return kind;
  });
}

/** A contributed kind's own keys as schema entries, in its order. */
export const contributedEntries = (kind: ConfigKindBlock): v.ObjectEntries =>
  Object.fromEntries(Object.entries(kind.keys).map(([name, key]) => [name, keySchema(key)]));
