import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  CONFIG_FILE_VARIABLE,
  ConfigError,
  DEFAULT_CONFIG_FILE,
  DEMO_SOURCE_NAME,
  explainConfig,
  formatProblems,
  type ExplainedSetting,
  type SettingOrigin,
} from '@queuebox/config';
import { sanitize, toError } from '@queuebox/core';
import { readDemoConfig } from '../startup/demo-config.js';
import { checkOffline } from '../startup/offline-check.js';
import { brokerConfigs } from '../providers.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface CommandOutput {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/**
 * `--config <file>` stands for `QUEUEBOX_CONFIG_FILE=<file>`; a file that is not there is the
 * answer itself (the loader would only say that no configuration was found).
 */
export function withConfigFile(env: Env, configFile: string | null, cwd: string): Env | string {
  if (configFile === null) return env;
  const file = resolve(cwd, configFile);
  if (!existsSync(file))
    return `The configuration file ${file} given with --config does not exist.`;
  return { ...env, [CONFIG_FILE_VARIABLE]: file };
}

/** `queuebox config check`: 0 when the start would get past every offline check, else 1. */
export async function runConfigCheck(env: Env, out: CommandOutput): Promise<number> {
  const { config, fileName, problems } = await checkOffline(env);
  if (problems.length > 0 || config === null) {
    out.stderr(
      problems.length === 1 && problems[0]?.startsWith('No configuration was found')
        ? problems[0]
        : formatProblems(problems),
    );
    return 1;
  }
  const count = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;
  out.stdout(
    `Checked ${checkedText(fileName)}.\n` +
      `The configuration has no problems: QueueBox would start with it (${count(Object.keys(config.destinations).length, 'destination')}, ` +
      `${count(config.routes.length, 'route')}, ${count(Object.keys(config.sources).length, 'source')}). ` +
      'The check did not connect to the database or any broker, so it cannot tell whether they answer.',
  );
  return 0;
}

/** `queuebox config print`: every setting, masked, with its source; 1 when it does not load. */
export function runConfigPrint(env: Env, out: CommandOutput): number {
  let explanation;
  try {
    explanation = explainConfig({
      env,
      demoConfigYaml: readDemoConfig(),
      brokers: brokerConfigs,
    });
  } catch (error: unknown) {
    out.stderr(error instanceof ConfigError ? error.message : sanitize(toError(error).message));
    return 1;
  }
  const file = explanation.fileName;
  out.stdout(
    [
      `# The effective configuration of QueueBox. "file": ${fileText(file)}; "variable": the QUEUEBOX_* variable named; "default": set by nobody.`,
      '# Secrets print as Secret(***), passwords in URLs and static header values as ***.',
      ...settingLines(explanation.settings),
    ].join('\n'),
  );
  return 0;
}

/** What `config check` read: a newcomer who ran it without a file learns it checked the demo. */
function checkedText(file: string | null): string {
  if (file === DEMO_SOURCE_NAME)
    return `${DEMO_SOURCE_NAME} (no ${CONFIG_FILE_VARIABLE}, no file at ${DEFAULT_CONFIG_FILE} and no QUEUEBOX_* variable; pass --config <file> to check yours)`;
  if (file === null) return 'the QUEUEBOX_* variables only (no configuration file was read)';
  return `the file ${file}`;
}

function settingLines(settings: readonly ExplainedSetting[]): string[] {
  const left = settings.map((s) => `${s.path} = ${s.value}`);
  const width = Math.min(72, Math.max(...left.map((text) => text.length)));
  return settings.map((s, i) => `${(left[i] ?? '').padEnd(width)}  # ${originText(s.origin)}`);
}

function fileText(file: string | null): string {
  if (file === null) return 'none was read, only variables configure';
  return file === DEMO_SOURCE_NAME ? file : `the file ${file}`;
}

function originText(origin: SettingOrigin): string {
  switch (origin.kind) {
    case 'file':
      return 'file';
    case 'variable':
      return `variable ${origin.names.join(', ')}`;
    case 'default':
      return origin.from === undefined ? 'default' : `default: ${origin.from}`;
  }
}
