import { QueueBoxError } from '@queuebox/core';

/**
 * A configuration that cannot start. `message` is the operator-facing text: either the list
 * format of spec §12.1 ("The configuration has N errors. ...") or, when there is no
 * configuration at all, the sentence that names the three sources.
 */
export class ConfigError extends QueueBoxError {
  /** One entry per problem line, without the leading "  - ". Empty for "No configuration was found". */
  readonly problems: readonly string[];

  constructor(message: string, problems: readonly string[] = []) {
    super('config_invalid', message);
    this.name = 'ConfigError';
    this.problems = problems;
  }

  static fromProblems(problems: readonly string[]): ConfigError {
    return new ConfigError(formatProblems(problems), problems);
  }
}

export function formatProblems(problems: readonly string[]): string {
  const count = problems.length === 1 ? '1 error' : `${problems.length} errors`;
  return [
    `The configuration has ${count}. Fix each one and start QueueBox again.`,
    ...problems.map((problem) => `  - ${problem}`),
  ].join('\n');
}
