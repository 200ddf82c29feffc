import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MAIN = 'apps/queuebox/dist/main.js';

/** A stand-in for `queuebox dev`: stops on SIGINT after a short drain, exit code 0, as dev does. */
const STAND_IN = `
import { appendFileSync } from 'node:fs';
const log = (line) => appendFileSync(process.env.LOG_FILE, line + '\\n');
process.on('SIGINT', () => { log('stopping'); setTimeout(() => { log('stopped'); process.exit(0); }, 300); });
setInterval(() => undefined, 1000);
log('running ' + process.argv.slice(2).join(' '));
`;

/**
 * A Ctrl-C of \`pnpm dev\`, as a terminal sends it: SIGINT to the whole foreground process group.
 * The workspace's root "dev" script and pnpm settings, copied into a scratch workspace with
 * QueueBox replaced by a stand-in, so the test runs pnpm's real script runner in seconds.
 */
describe('pnpm dev', () => {
  const dir = mkdtempSync(join(tmpdir(), 'queuebox-dev-script-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('ends a clean Ctrl-C with exit code 0 after the drain, without pnpm ELIFECYCLE', async () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
      engines: Record<string, string>;
    };
    const script = manifest.scripts.dev!;
    expect(script).toContain(MAIN);
    writeFileSync(join(dir, 'stand-in.mjs'), STAND_IN);
    // The script's own Node.js check runs first, against the same engines.
    mkdirSync(join(dir, 'scripts'));
    copyFileSync(join(ROOT, 'scripts/check-node.mjs'), join(dir, 'scripts/check-node.mjs'));
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({
        name: 'dev-script',
        private: true,
        engines: manifest.engines,
        scripts: { dev: script.replace(MAIN, 'stand-in.mjs') },
      }),
    );
    // The settings that decide how scripts run, without the workspace's package list.
    const settings = readFileSync(join(ROOT, 'pnpm-workspace.yaml'), 'utf8')
      .split('\n')
      .filter((line) => /^(shellEmulator|scriptShell):/.test(line));
    writeFileSync(join(dir, 'pnpm-workspace.yaml'), `${settings.join('\n')}\n`);
    const logFile = join(dir, 'log.txt');
    writeFileSync(logFile, '');
    const log = () => readFileSync(logFile, 'utf8');

    const child = spawn('pnpm', ['dev'], {
      cwd: dir,
      detached: true,
      env: { ...process.env, LOG_FILE: logFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const deadline = Date.now() + 60_000;
    while (!log().includes('running dev') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(log()).toContain('running dev');
    process.kill(-child.pid!, 'SIGINT');
    const result = await exited;

    expect(output).not.toContain('ELIFECYCLE');
    expect(result).toEqual({ code: 0, signal: null });
    // pnpm waited for the drain: the prompt does not come back while QueueBox is still stopping.
    expect(log()).toContain('stopped');
  }, 90_000);
});
