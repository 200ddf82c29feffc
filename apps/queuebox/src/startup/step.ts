import { QueueBoxError, sanitizeError } from '@queuebox/core';

/**
 * Wraps one startup step so its failure reads "QueueBox could not <step>. Reason: <sanitized>"
 * (spec §17.1 step 11): one line, no cause chain, no password or URL from a driver message.
 */
export async function step<T>(description: string, run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error: unknown) {
    if (error instanceof StartupFailure) throw error;
    // Configuration errors are already the operator's full, formatted answer.
    const reason =
      error instanceof QueueBoxError && error.code === 'config_invalid'
        ? error.message
        : sanitizeError(error);
    throw new StartupFailure(`QueueBox could not ${description}. Reason: ${reason}`);
  }
}

export class StartupFailure extends QueueBoxError {
  // Its own name: the command prints a StartupFailure's text as it is, found by this name.
  override readonly name = 'StartupFailure';

  constructor(message: string) {
    super('startup_failed', message);
  }
}
