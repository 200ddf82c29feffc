/**
 * What the startup validator compiled, and what the router reads on every row: the route
 * patterns as regular expressions and every transform as a ready stage, so no row ever compiles.
 */
import type { BrokerAddressRules, DestinationConfig, RouteConfig } from '@queuebox/core';
import type { TransformStage } from '../transform/transform-stage.js';

export interface CompiledRoute {
  /** Position in `routes`: list order decides, the first match wins. */
  readonly index: number;
  readonly config: RouteConfig;
  readonly pattern: RegExp;
  readonly transform: TransformStage | null;
}

export interface CompiledDestination {
  readonly name: string;
  readonly config: DestinationConfig;
  readonly transform: TransformStage | null;
  /** Where its broker reads the address and routing key; null for HTTP or an unknown kind. */
  readonly address: BrokerAddressRules | null;
}

export interface RoutingPlan {
  readonly routes: readonly CompiledRoute[];
  readonly destinations: ReadonlyMap<string, CompiledDestination>;
}
