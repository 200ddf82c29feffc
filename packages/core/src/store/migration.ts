/**
 * One bundled migration file. The SQL is embedded as a string so the runtime never reads loose
 * files; `script` is the file name the reference's Flyway recorded, so the history rows we write
 * look like the ones a database migrated by QueueBox 0.8.1 already holds.
 */
export interface Migration {
  /** Flyway version, "1" ... "11". */
  readonly version: string;
  /** The file name's description with `_` as space, as Flyway records it. */
  readonly description: string;
  /** The reference file name, e.g. `V1__create_outbox.sql`. */
  readonly script: string;
  /** The file's text; its Flyway checksum is computed over these lines. */
  readonly sql: string;
}
