/**
 * A Kafka broker of a test's own (dev only), for faults that must not touch the shared brokers:
 * the local 4.x broker of scripts/kafka/broker.mjs moved to free ports of its own (its port, the
 * controller on port + 1 and SASL on port + 2) and so to a data folder of its own. `kill` SIGKILLs
 * it by its pid and keeps its data; `restart` starts it again on that data, as a crashed broker
 * comes back; `stop` ends it and deletes the data. The jars come from the script's Maven cache.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('../../../scripts/kafka/broker.mjs', import.meta.url));

export interface PrivateKafka {
  /** `127.0.0.1:<port>`, for `bootstrapServers`. */
  readonly brokers: string;
  readonly port: number;
  /** SIGKILL: no shutdown, no flush; the data folder stays. */
  kill(): Promise<void>;
  /** Starts the killed broker again on its data; resolves once it answers a metadata request. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A port whose next two are free too (controller and SASL listener). */
async function freeTriple(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const port = 20_000 + Math.floor(Math.random() * 10_000) * 3;
    if ((await portFree(port)) && (await portFree(port + 1)) && (await portFree(port + 2))) {
      return port;
    }
  }
  throw new Error('no three consecutive free ports for a private Kafka broker');
}

function script(port: number, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, QUEUEBOX_KAFKA_PORT: String(port) };
    const child = spawn(process.execPath, [SCRIPT, ...args], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`broker.mjs ${args.join(' ')} exited ${code}:\n${stderr}`)),
    );
  });
}

export async function startPrivateKafka(): Promise<PrivateKafka> {
  const port = await freeTriple();
  await script(port, ['start', '4']);
  return {
    brokers: `127.0.0.1:${port}`,
    port,
    kill: () => script(port, ['kill', '4']),
    restart: () => script(port, ['start', '--keep-data', '4']),
    stop: () => script(port, ['stop', '4']),
  };
}
