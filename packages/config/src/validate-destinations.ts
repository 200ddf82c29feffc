/** Rules of `destinations` (spec §6) and `routes` (spec §5.1, §12.2). */
import { addressTemplateProblems } from '@queuebox/core';
import { displayPath, type Path, type Problems } from './problems.js';
import type { RawConfig, RawDestination } from './schema.js';
import { hasDotSegment, httpUrlProblem, isAmqpUri } from './url-rules.js';
import {
  checkDestinationAuth,
  checkKafkaSecurity,
  checkNatsCredentials,
  checkTransform,
  headerNameProblem,
  headerValueProblem,
  requireText,
} from './validate-blocks.js';
import { isBlank } from './values.js';

/** The smallest Kafka publish budget that leaves room for the request timeout (spec §6.3). */
export const MINIMUM_KAFKA_TIMEOUT_MS = 2000;

export function validateDestinations(config: RawConfig, problems: Problems): void {
  for (const [name, destination] of Object.entries(config.destinations)) {
    const path = ['destinations', name];
    checkTransform(problems, [...path, 'transform'], destination.transform);
    validateDestination(destination, path, problems);
  }
}

function validateDestination(destination: RawDestination, path: Path, problems: Problems): void {
  switch (destination.type) {
    case 'http': {
      const baseUrl = [...path, 'baseUrl'];
      const problem = problems.has(baseUrl)
        ? undefined
        : httpUrlProblem(
            destination.baseUrl,
            `use the 'auth' block (${displayPath([...path, 'auth'])}) instead`,
          );
      if (problem !== undefined) problems.add(baseUrl, problem);
      if (hasDotSegment(destination.path)) {
        problems.add(
          [...path, 'path'],
          `'${destination.path}' must not hold a '.' or '..' segment, because the server resolves it and the target changes`,
        );
      }
      checkStaticHeaders(problems, [...path, 'headers'], destination.headers);
      checkDestinationAuth(problems, [...path, 'auth'], destination.auth);
      return;
    }
    case 'rabbitmq':
      checkAmqpUrl(problems, [...path, 'url'], destination.url);
      checkAddress(problems, path, 'exchange', destination.exchange, destination.exchangeFrom);
      requireText(problems, [...path, 'exchangeType'], destination.exchangeType);
      return;
    case 'kafka':
      requireText(problems, [...path, 'bootstrapServers'], destination.bootstrapServers);
      checkAddress(problems, path, 'topic', destination.topic, destination.topicFrom);
      if (
        destination.timeoutMs < MINIMUM_KAFKA_TIMEOUT_MS &&
        !problems.has([...path, 'timeoutMs'])
      ) {
        problems.add(
          [...path, 'timeoutMs'],
          `must be at least ${MINIMUM_KAFKA_TIMEOUT_MS}; the Kafka producer needs the delivery timeout to stay above the request timeout`,
        );
      }
      checkKafkaSecurity(problems, path, destination);
      return;
    case 'nats':
      requireText(problems, [...path, 'servers'], destination.servers);
      checkAddress(problems, path, 'subject', destination.subject, destination.subjectFrom);
      checkNatsCredentials(problems, path, destination);
      return;
  }
}

/**
 * Static headers of an HTTP destination: each one goes on every request, so a header HTTP cannot
 * carry, or one the publisher sets itself, would fail or garble every message.
 */
function checkStaticHeaders(
  problems: Problems,
  path: Path,
  headers: Readonly<Record<string, string>>,
): void {
  for (const [name, value] of Object.entries(headers)) {
    const problem = headerNameProblem(name) ?? headerValueProblem(value);
    if (problem !== undefined) problems.add([...path, name], problem);
  }
}

/** An AMQP URI is checked without printing it: it usually carries the broker password. */
export function checkAmqpUrl(problems: Problems, path: Path, url: string): void {
  if (problems.has(path)) return;
  if (isBlank(url)) problems.add(path, 'must not be blank');
  else if (!isAmqpUri(url)) {
    problems.add(
      path,
      'is not a valid AMQP URI (amqp://host or amqps://host); the value is not printed because it can hold a password',
    );
  }
}

/**
 * The address (`exchange`, `topic`, `subject`) is a template unless `<key>From` names a row
 * column, which then wins; one of the two must be set. A template may only read fields a row has.
 */
function checkAddress(
  problems: Problems,
  path: Path,
  key: string,
  template: string | null,
  from: string | null,
): void {
  const at = [...path, key];
  if (template === null) {
    if (from === null && !problems.has([...path, `${key}From`])) {
      problems.add(at, `required unless ${displayPath([...path, `${key}From`])} is set`);
    }
    return;
  }
  if (from === null) requireText(problems, at, template);
  for (const placeholder of addressTemplateProblems(template)) {
    problems.add(
      at,
      `the placeholder {{ ${placeholder} }} cannot be used in an address; use topic, key, aggregateType, payload.<field> or data.<field>`,
    );
  }
}

export function validateRoutes(config: RawConfig, problems: Problems): void {
  const names = Object.keys(config.destinations);
  config.routes.forEach((route, index) => {
    const path = ['routes', index];
    const pattern = [...path, 'topicPattern'];
    requireText(problems, pattern, route.topicPattern);
    if (route.topicPattern.includes('***')) {
      problems.add(
        pattern,
        `'${route.topicPattern}' holds '***'; use '*' for one segment and '**' for any number of segments`,
      );
    }
    const destination = [...path, 'destination'];
    requireText(problems, destination, route.destination);
    const known = Object.hasOwn(config.destinations, route.destination);
    // A destination that failed its own checks (no type, say) was dropped; it is reported there.
    if (
      !known &&
      !isBlank(route.destination) &&
      !problems.has(destination) &&
      !problems.has(['destinations', route.destination])
    ) {
      problems.add(
        destination,
        names.length === 0
          ? `names the destination '${route.destination}', but no destinations are configured`
          : `names the destination '${route.destination}', which does not exist; the destinations are ${names.join(', ')}`,
      );
    }
    checkTransform(problems, [...path, 'transform'], route.transform);
  });
}
