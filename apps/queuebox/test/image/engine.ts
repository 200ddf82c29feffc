import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The container engine as `pnpm image:test` drives it: scripts/image/engine-cli.sh, so the
 * settings this machine needs (runc, cgroupfs, no default ulimits, the storage outside the
 * repository) are the build's own. Every container is named under one run id and labelled, so
 * scripts/image/test.sh removes whatever a failed run left.
 */
export const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const CLI = join(ROOT, 'scripts/image/engine-cli.sh');
export const IMAGE = process.env.QUEUEBOX_IMAGE ?? 'localhost/queuebox:dev';
export const ENGINE = process.env.QUEUEBOX_IMAGE_ENGINE ?? 'podman';
const RUN_ID = randomBytes(4).toString('hex');
export const TEST_LABEL = 'org.queuebox.test=image';

export interface EngineResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function engine(args: readonly string[], timeoutMs = 120_000): Promise<EngineResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`engine ${args.join(' ')} took over ${timeoutMs} ms\n${stdout}${stderr}`));
    }, timeoutMs);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs the engine and fails with its output unless it exits 0. */
export async function engineOk(args: readonly string[], timeoutMs?: number): Promise<string> {
  const result = await engine(args, timeoutMs);
  if (result.code !== 0)
    throw new Error(
      `engine ${args.join(' ')} exited ${result.code}\n${result.stdout}${result.stderr}`,
    );
  return result.stdout;
}

export const containerName = (role: string) => `qb-image-test-${RUN_ID}-${role}`;

/** Starts a labelled container (so a later run can clean it up) on `network`, detached. */
export function runDetached(
  name: string,
  network: string,
  args: readonly string[],
): Promise<string> {
  return engineOk([
    'run',
    '--detach',
    '--name',
    name,
    '--label',
    TEST_LABEL,
    '--network',
    network,
    ...args,
  ]);
}

/** A configuration file the container's non-root user can read, to mount read-only. */
export function configFile(yaml: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'queuebox-image-test-'));
  chmodSync(dir, 0o755);
  const path = join(dir, 'queuebox.yml');
  writeFileSync(path, yaml, { mode: 0o644 });
  return path;
}

/** `run` options every QueueBox container here gets: the host's network and services, the label. */
export function runOptions(config: string | undefined, name: string): string[] {
  return [
    '--name',
    name,
    '--label',
    TEST_LABEL,
    '--network',
    'host',
    ...(config === undefined ? [] : ['-v', `${config}:/etc/queuebox/queuebox.yml:ro`]),
  ];
}

export async function inspect<T>(target: string, format: string): Promise<T> {
  const out = await engineOk(['inspect', '--format', `{{ json ${format} }}`, target]);
  return JSON.parse(out) as T;
}

export async function removeContainers(names: readonly string[]): Promise<void> {
  if (names.length > 0) await engine(['rm', '--force', ...names]);
}

/**
 * Runs the image's HEALTHCHECK in a running container: `podman healthcheck run` (podman has no
 * scheduler for it here), or the same command by `exec` on Docker, which schedules it itself.
 * As the engine judges it: unhealthy only after the HEALTHCHECK's `--retries` failures in a
 * row, so one check that outlives its timeout on a loaded machine is not a verdict.
 */
export async function runHealthcheck(name: string): Promise<EngineResult> {
  const config = await engineOk([
    'image',
    'inspect',
    '--format',
    '{{ json .Config.Healthcheck }}',
    IMAGE,
  ]);
  const { Test: test, Retries: retries } = JSON.parse(config) as {
    Test: string[];
    Retries?: number;
  };
  let result: EngineResult | undefined;
  for (let attempt = 0; attempt < Math.max(1, retries ?? 3); attempt++) {
    result =
      ENGINE === 'podman'
        ? await engine(['healthcheck', 'run', name])
        : await engine(['exec', name, ...test.slice(1)]);
    if (result.code === 0) return result;
  }
  return result!;
}
