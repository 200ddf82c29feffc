/**
 * The startup check of routes and destinations (spec §5.3, §5.4, §17.1 steps 3-4): every route
 * and destination transform compiles, every topic pattern compiles, address templates use only
 * permitted placeholders, `*From` names a real column, and every destination type has a
 * publisher. All problems are reported in one error, so one restart fixes them all.
 */
import {
  QueueBoxError,
  addressTemplateProblems,
  compileTopicPattern,
  toError,
  type AppConfig,
  type BrokerAddressRules,
  type DestinationConfig,
  type DestinationType,
  type TransformConfig,
  type Transformer,
} from '@queuebox/core';
import { compileTransformStage } from '../transform/transform-stage.js';
import { addressKeys } from './address-resolver.js';
import type { CompiledDestination, CompiledRoute, RoutingPlan } from './routing-plan.js';
import type { TransformStage } from '../transform/transform-stage.js';

const ADDRESS_COLUMNS: readonly string[] = ['aggregate_type', 'topic', 'key'];

export interface RoutingValidationOptions {
  /**
   * Destination types that have a publisher. When given, a destination whose type has none stops
   * the start; leave it out for the early compile step that runs before publishers exist.
   */
  readonly publisherTypes?: Iterable<DestinationType>;
  /**
   * Each broker type's address rules (its provider's descriptor). A broker destination whose type
   * has none gets no address: its type has no publisher either, which the check above reports.
   */
  readonly addressRules?: ReadonlyMap<string, BrokerAddressRules>;
}

/** A routing configuration that cannot start; `problems` holds one line per problem. */
export class RoutingConfigError extends QueueBoxError {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super('config_invalid', formatProblems(problems));
    this.name = 'RoutingConfigError';
    this.problems = problems;
  }
}

function formatProblems(problems: readonly string[]): string {
  if (problems.length === 1) return problems[0] ?? '';
  return [
    `The routing configuration has ${problems.length} errors. Fix each one and start QueueBox again.`,
    ...problems.map((problem) => `  - ${problem}`),
  ].join('\n');
}

/** Compiles and checks the routing part of the configuration; throws a `RoutingConfigError`. */
export function validateRouting(
  config: Pick<AppConfig, 'routes' | 'destinations'>,
  transformer: Transformer,
  options: RoutingValidationOptions = {},
): RoutingPlan {
  const problems: string[] = [];
  const destinations = new Map<string, CompiledDestination>();
  const available =
    options.publisherTypes === undefined ? null : new Set<string>(options.publisherTypes);

  for (const [name, destination] of Object.entries(config.destinations)) {
    const path = `destinations.${name}`;
    const transform = compileStage(
      transformer,
      destination.transform,
      `${path}.transform.expression`,
      problems,
    );
    const address = options.addressRules?.get(destination.type) ?? null;
    problems.push(...addressProblems(name, destination, address));
    if (available !== null && !available.has(destination.type)) {
      problems.push(
        `${path}: no publisher supports destination '${name}' of type '${destination.type}'`,
      );
    }
    destinations.set(name, { name, config: destination, transform, address });
  }

  const routes: CompiledRoute[] = [];
  config.routes.forEach((route, index) => {
    const path = `routes[${index}]`;
    const transform = compileStage(
      transformer,
      route.transform,
      `${path}.transform.expression`,
      problems,
    );
    if (!Object.hasOwn(config.destinations, route.destination)) {
      problems.push(
        `${path}.destination: the destination '${route.destination}' is not configured`,
      );
    }
    try {
      routes.push({
        index,
        config: route,
        pattern: compileTopicPattern(route.topicPattern),
        transform,
      });
    } catch (error: unknown) {
      problems.push(`${path}.topicPattern: ${toError(error).message}`);
    }
  });

  if (problems.length > 0) throw new RoutingConfigError(problems);
  return { routes, destinations };
}

function compileStage(
  transformer: Transformer,
  transform: TransformConfig | null,
  keyPath: string,
  problems: string[],
): TransformStage | null {
  if (transform === null) return null;
  try {
    return compileTransformStage(transformer, transform, keyPath);
  } catch (error: unknown) {
    problems.push(toError(error).message);
    return null;
  }
}

/**
 * An address that silently rendered a default would publish to the wrong place, so a placeholder
 * other than topic, key, aggregateType, payload.* and data.* stops the start. The template is
 * checked only where it is used: a `*From` column replaces it entirely.
 */
function addressProblems(
  name: string,
  destination: DestinationConfig,
  rules: BrokerAddressRules | null,
): string[] {
  const keys = addressKeys(destination, rules);
  if (keys === null) return [];
  const path = `destinations.${name}`;
  if (keys.from !== null) {
    return ADDRESS_COLUMNS.includes(keys.from)
      ? []
      : [
          `${path}.${keys.fromKey}: the column '${String(keys.from)}' of destination '${name}' is not an address column. Use aggregate_type, topic or key.`,
        ];
  }
  return addressTemplateProblems(keys.template).map(
    (field) =>
      `${path}.${keys.templateKey}: the placeholder '{{ ${field} }}' is not allowed in the ${keys.templateKey} of destination '${name}'. An address may use topic, key, aggregateType, payload.<field> or data.<field>.`,
  );
}
