/**
 * Structured logging. Libraries log through this port; only the app creates the pino logger.
 * `fields` carry the context keys of the spec (messageId, topic, destination, attempt, source,
 * correlationId); messages are already sanitized by the caller.
 */
export type LogFields = Record<string, string | number | boolean | null | undefined>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every line. */
  child(fields: LogFields): Logger;
}

export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silentLogger,
};

/**
 * `parent.child(fields)`, made when the first line is logged. A child logger is not free (pino
 * serialises its bindings when it is made), and most messages and requests log nothing.
 */
export class LazyChildLogger implements Logger {
  readonly #parent: Logger;
  readonly #fields: LogFields;
  #child: Logger | null = null;

  constructor(parent: Logger, fields: LogFields) {
    this.#parent = parent;
    this.#fields = fields;
  }

  debug(message: string, fields?: LogFields): void {
    this.#made().debug(message, fields);
  }

  info(message: string, fields?: LogFields): void {
    this.#made().info(message, fields);
  }

  warn(message: string, fields?: LogFields): void {
    this.#made().warn(message, fields);
  }

  error(message: string, fields?: LogFields): void {
    this.#made().error(message, fields);
  }

  child(fields: LogFields): Logger {
    return this.#made().child(fields);
  }

  #made(): Logger {
    this.#child ??= this.#parent.child(this.#fields);
    return this.#child;
  }
}
