/**
 * The `QUEUEBOX_*` naming rules of spec §13. A variable maps to a YAML path by stripping the
 * prefix, keeping `__` as a literal `_`, lower-casing, and reading every other `_` as a `.`; so a
 * leaf name has no inner underscore (`QUEUEBOX_OUTBOX_POLLINTERVALMS`).
 */

export const ENV_PREFIX = 'QUEUEBOX_';
export const CONFIG_FILE_VARIABLE = 'QUEUEBOX_CONFIG_FILE';
export const DEFAULT_CONFIG_FILE = '/etc/queuebox/queuebox.yml';

/**
 * Kubernetes injects `<SERVICE>_SERVICE_HOST`, `<SERVICE>_PORT_8080_TCP` and friends for every
 * service in the namespace, so a service named `queuebox` produces `QUEUEBOX_PORT` and others.
 * Such a name is ignored unless it binds a real setting.
 */
const SERVICE_LINK = /_SERVICE_HOST$|_SERVICE_PORT(_.*)?$|_PORT$|_PORT_\d+_(TCP|UDP|SCTP)(_.*)?$/;

export function isServiceLinkName(name: string): boolean {
  return SERVICE_LINK.test(name);
}

/** `QUEUEBOX_DESTINATIONS_MY__API_BASEURL` → `['destinations', 'my_api', 'baseurl']`. */
export function envNameToSegments(name: string): string[] {
  return name
    .slice(ENV_PREFIX.length)
    .split('__')
    .map((part) => part.toLowerCase().split('_'))
    .reduce<string[]>((segments, parts, index) => {
      if (index === 0) return parts;
      // The `__` between two parts was a literal `_` inside one segment.
      const last = segments.pop() ?? '';
      return [...segments, `${last}_${parts[0] ?? ''}`, ...parts.slice(1)];
    }, []);
}

/** The variable that sets a YAML path: `routes.0.topicPattern` → `QUEUEBOX_ROUTES_0_TOPICPATTERN`. */
export function segmentsToEnvName(segments: readonly (string | number)[]): string {
  return ENV_PREFIX + segments.map((s) => String(s).replace(/_/g, '__').toUpperCase()).join('_');
}

/** Whether a path can be written as a variable at all (a `-` in a name cannot). */
export function isEnvExpressible(segments: readonly (string | number)[]): boolean {
  return segments.every((s) => /^[A-Za-z0-9_]+$/.test(String(s)));
}

/** `database.url` → `QUEUEBOX_DATABASE_URL`, for messages that tell the operator where a key is set. */
export function yamlPathToEnvKey(yamlPath: string): string {
  return segmentsToEnvName(yamlPath.replace(/\[(\d+)\]/g, '.$1').split('.'));
}

/** `QUEUEBOX_DESTINATIONS_MY__API_BASEURL` → `destinations.my_api.baseurl`. */
export function envKeyToYamlPath(name: string): string {
  return envNameToSegments(name).join('.');
}
