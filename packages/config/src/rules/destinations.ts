/** Rules of `destinations` (spec §6) and `routes` (spec §5.1, §12.2) that name other keys. */
import { addressTemplateProblems } from '@queuebox/core';
import { displayPath, type Path } from '../problems.js';
import type { RawConfig, RawDestination } from '../schema/config.js';
import {
  checkHttpUrl,
  checkKafkaSecurity,
  checkNatsCredentials,
  requireText,
  type Rules,
} from './shared.js';

export function checkDestinations(config: RawConfig, rules: Rules): void {
  if (rules.blocked(['destinations'])) return;
  for (const [name, destination] of Object.entries(config.destinations)) {
    const path = ['destinations', name];
    if (!rules.blocked(path)) checkDestination(destination, path, rules);
  }
}

type DestinationAuth = NonNullable<Extract<RawDestination, { type: 'http' }>['auth']>;

/** `oauth2`, `basic`, `header` on an HTTP destination (spec §6.1). */
function checkDestinationAuth(rules: Rules, path: Path, auth: DestinationAuth | null): void {
  if (auth?.type !== 'oauth2' || rules.blocked(path)) return;
  const credentials = `set the client credentials in ${displayPath([...path, 'clientId'])} and ${displayPath([...path, 'clientSecret'])}`;
  checkHttpUrl(rules, [...path, 'tokenUrl'], auth.tokenUrl, credentials);
}

function checkDestination(destination: RawDestination, path: Path, rules: Rules): void {
  switch (destination.type) {
    case 'http':
      checkHttpUrl(
        rules,
        [...path, 'baseUrl'],
        destination.baseUrl,
        `use the 'auth' block (${displayPath([...path, 'auth'])}) instead`,
      );
      checkDestinationAuth(rules, [...path, 'auth'], destination.auth);
      return;
    case 'rabbitmq':
      checkAddress(rules, path, 'exchange', destination.exchange, destination.exchangeFrom);
      return;
    case 'kafka':
      checkAddress(rules, path, 'topic', destination.topic, destination.topicFrom);
      checkKafkaSecurity(rules, path, destination);
      return;
    case 'nats':
      checkAddress(rules, path, 'subject', destination.subject, destination.subjectFrom);
      checkNatsCredentials(rules, path, destination);
      return;
  }
}

/**
 * The address (`exchange`, `topic`, `subject`) is a template unless `<key>From` names a row
 * column, which then wins; one of the two must be set. A template may only read fields a row has.
 */
function checkAddress(
  rules: Rules,
  path: Path,
  key: string,
  template: string | null,
  from: string | null,
): void {
  const at = [...path, key];
  if (rules.has(at)) return;
  if (template === null) {
    if (from === null && !rules.has([...path, `${key}From`])) {
      rules.add(at, `required unless ${displayPath([...path, `${key}From`])} is set`);
    }
    return;
  }
  if (from === null) requireText(rules, at, template);
  for (const placeholder of addressTemplateProblems(template)) {
    rules.add(
      at,
      `the placeholder {{ ${placeholder} }} cannot be used in an address; use topic, key, aggregateType, payload.<field> or data.<field>`,
    );
  }
}

export function checkRoutes(config: RawConfig, rules: Rules): void {
  if (rules.blocked(['routes'])) return;
  const destinations = rules.blocked(['destinations']) ? {} : config.destinations;
  const names = Object.keys(destinations);
  config.routes.forEach((route, index) => {
    const destination = ['routes', index, 'destination'];
    if (rules.has(destination)) return;
    // A destination that failed its own checks (no type, say) is reported there.
    if (
      !Object.hasOwn(destinations, route.destination) &&
      !rules.blocked(['destinations', route.destination])
    ) {
      rules.add(
        destination,
        names.length === 0
          ? `names the destination '${route.destination}', but no destinations are configured`
          : `names the destination '${route.destination}', which does not exist; the destinations are ${names.join(', ')}`,
      );
    }
  });
}
