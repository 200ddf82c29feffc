#!/usr/bin/env node
// A local single-node KRaft Kafka (broker and controller in one JVM) for the tests and the bench,
// run from the jars Maven resolves (scripts/kafka/pom.xml), in two versions side by side:
//
//   node scripts/kafka/broker.mjs start [4|3.9 ...]   (pnpm kafka:start; both when none is named)
//   node scripts/kafka/broker.mjs stop [4|3.9 ...]    (pnpm kafka:stop)
//   node scripts/kafka/broker.mjs status
//   node scripts/kafka/broker.mjs kill [4|3.9 ...]    (SIGKILL, data kept: the fault tests)
//   node scripts/kafka/broker.mjs start --keep-data   (starts a killed broker on its data again)
//
// QUEUEBOX_KAFKA_PORT / QUEUEBOX_KAFKA39_PORT move a broker (and its data folder) to ports of its
// own: the fault tests start, kill and restart a private broker that way, never the shared ones.
//
// `start` is idempotent: a broker already running from here is left as it is. It returns once the
// broker answers a metadata request, and prints `export NAME=host:port` lines on stdout (its other
// messages go to stderr), so `eval "$(node scripts/kafka/broker.mjs start)"` sets them.
// The jars are cached outside git (QUEUEBOX_KAFKA_CACHE, default ~/.cache/queuebox/kafka); each
// broker's data, logs and pid live in a temp folder that a fresh start formats anew.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { probeBroker } from './probe.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const HOST = '127.0.0.1';
// A JVM left to itself takes a quarter of the machine's memory; these brokers take a fixed heap.
const HEAP = '-Xmx512m';

const BROKERS = {
  4: {
    version: '4.4.0',
    profile: 'kafka4',
    port: Number(process.env.QUEUEBOX_KAFKA_PORT ?? 9092),
    variables: ['QUEUEBOX_TEST_KAFKA_BROKERS', 'QUEUEBOX_BENCH_KAFKA_BROKERS'],
    saslVariables: ['QUEUEBOX_TEST_KAFKA_SASL_BROKERS'],
  },
  3.9: {
    version: '3.9.2',
    profile: 'kafka3',
    port: Number(process.env.QUEUEBOX_KAFKA39_PORT ?? 9392),
    variables: ['QUEUEBOX_TEST_KAFKA39_BROKERS'],
    saslVariables: [],
  },
};

const cacheRoot =
  process.env.QUEUEBOX_KAFKA_CACHE ?? join(homedir(), '.cache', 'queuebox', 'kafka');
const stateRoot = join(tmpdir(), 'queuebox-kafka');

const say = (line) => process.stderr.write(`${line}\n`);

function stateDir(broker) {
  return join(stateRoot, `${broker.version}-${broker.port}`);
}

/** The pid of the broker this script started, when that process is still running. */
function runningPid(broker) {
  const pidFile = join(stateDir(broker), 'pid');
  if (!existsSync(pidFile)) return undefined;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    // A pid the system reused for another program is not our broker.
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.includes('kafka.Kafka') && cmdline.includes(stateDir(broker)) ? pid : undefined;
  } catch {
    return undefined;
  }
}

async function answers(broker) {
  try {
    const { brokers } = await probeBroker(HOST, broker.port);
    return brokers.length > 0;
  } catch {
    return false;
  }
}

/** The broker's jars, resolved by Maven once into the cache. */
function libs(broker) {
  const dir = join(cacheRoot, broker.version, 'libs');
  if (existsSync(join(dir, '.complete'))) return dir;
  say(`Resolving Kafka ${broker.version} with Maven into ${dir} ...`);
  const partial = `${dir}.partial`;
  rmSync(partial, { recursive: true, force: true });
  const mvn = spawnSync(
    'mvn',
    [
      '-q',
      '-B',
      '-f',
      join(here, 'pom.xml'),
      `-P${broker.profile}`,
      `-Dkafka.version=${broker.version}`,
      'dependency:copy-dependencies',
      `-DoutputDirectory=${partial}`,
      '-DincludeScope=runtime',
    ],
    { encoding: 'utf8' },
  );
  if (mvn.error || mvn.status !== 0) {
    throw new Error(
      `mvn dependency:copy-dependencies for Kafka ${broker.version} failed` +
        (mvn.error
          ? `: ${mvn.error.message}`
          : ` (exit ${mvn.status}):\n${mvn.stdout}${mvn.stderr}`),
    );
  }
  rmSync(dir, { recursive: true, force: true });
  renameSync(partial, dir);
  writeFileSync(join(dir, '.complete'), `${readdirSync(dir).length} jars\n`);
  return dir;
}

/**
 * The SASL/PLAIN users of the SASL_PLAINTEXT listener (port + 2), for the tests of
 * authentication and authorization refusals. `admin` is a super user; so is ANONYMOUS, the
 * principal of every PLAINTEXT client, so the suites on the plain port see no ACL at all. A
 * resource without an ACL is open to everyone; a test restricts its own topic with an ACL.
 */
const SASL_USERS = { admin: 'admin-secret', alice: 'alice-secret', bob: 'bob-secret' };

function serverProperties(broker, dir) {
  const controller = broker.port + 1;
  const sasl = broker.port + 2;
  const users = Object.entries(SASL_USERS)
    .map(([user, password]) => `user_${user}="${password}"`)
    .join(' ');
  return [
    'process.roles=broker,controller',
    'node.id=1',
    `controller.quorum.voters=1@${HOST}:${controller}`,
    `listeners=PLAINTEXT://${HOST}:${broker.port},CONTROLLER://${HOST}:${controller},SASL_PLAINTEXT://${HOST}:${sasl}`,
    `advertised.listeners=PLAINTEXT://${HOST}:${broker.port},SASL_PLAINTEXT://${HOST}:${sasl}`,
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=PLAINTEXT',
    'listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT',
    'sasl.enabled.mechanisms=PLAIN',
    `listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="${SASL_USERS.admin}" ${users};`,
    'authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer',
    'super.users=User:ANONYMOUS;User:admin',
    'allow.everyone.if.no.acl.found=true',
    `log.dirs=${join(dir, 'data')}`,
    // A missing topic must stay missing, as on the clusters QueueBox is pointed at.
    'auto.create.topics.enable=false',
    'num.partitions=1',
    // One broker: internal topics with one replica, and few partitions so the first consumer
    // group does not wait for fifty to be created.
    'offsets.topic.replication.factor=1',
    'offsets.topic.num.partitions=1',
    'transaction.state.log.replication.factor=1',
    'transaction.state.log.min.isr=1',
    'transaction.state.log.num.partitions=1',
    'share.coordinator.state.topic.replication.factor=1',
    'share.coordinator.state.topic.min.isr=1',
    'group.initial.rebalance.delay.ms=0',
    '',
  ].join('\n');
}

function logConfig(broker, dir) {
  const file = join(dir, 'server.log');
  if (broker.profile === 'kafka4') {
    const path = join(dir, 'log4j2.properties');
    writeFileSync(
      path,
      [
        'rootLogger.level = INFO',
        'rootLogger.appenderRef.file.ref = file',
        'appender.file.type = File',
        'appender.file.name = file',
        `appender.file.fileName = ${file}`,
        'appender.file.layout.type = PatternLayout',
        'appender.file.layout.pattern = [%d] %p %m (%c)%n',
        '',
      ].join('\n'),
    );
    return `-Dlog4j2.configurationFile=${path}`;
  }
  const path = join(dir, 'log4j.properties');
  writeFileSync(
    path,
    [
      'log4j.rootLogger=INFO, file',
      'log4j.appender.file=org.apache.log4j.FileAppender',
      `log4j.appender.file.File=${file}`,
      'log4j.appender.file.layout=org.apache.log4j.PatternLayout',
      'log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n',
      '',
    ].join('\n'),
  );
  return `-Dlog4j.configuration=file:${path}`;
}

function java(args, options) {
  return spawnSync('java', args, { encoding: 'utf8', ...options });
}

/** Whether `dir` holds a broker's formatted storage (Kafka's storage tool wrote meta.properties). */
function formatted(dir) {
  return (
    existsSync(join(dir, 'data', 'meta.properties')) && existsSync(join(dir, 'server.properties'))
  );
}

async function start(broker, { keepData = false } = {}) {
  const label = `Kafka ${broker.version}`;
  const dir = stateDir(broker);
  let pid = runningPid(broker);
  if (pid === undefined && keepData && formatted(dir)) {
    // A broker that was killed comes back on its own log, as a crashed broker restarts.
    if (await answers(broker)) {
      throw new Error(
        `${HOST}:${broker.port} already answers as a Kafka broker this script did not start`,
      );
    }
    pid = launch(broker, dir, join(dir, 'server.properties'), logConfig(broker, dir));
    say(`${label}: started again on its data (pid ${pid}) in ${dir}`);
  } else if (pid === undefined) {
    if (await answers(broker)) {
      throw new Error(
        `${HOST}:${broker.port} already answers as a Kafka broker this script did not start; stop it or choose another port`,
      );
    }
    const classpath = `${libs(broker)}/*`;
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const properties = join(dir, 'server.properties');
    writeFileSync(properties, serverProperties(broker, dir));
    const logging = logConfig(broker, dir);
    // An id that starts with '-' would be read as an option by the storage tool, as Kafka's own
    // generator knows: draw again.
    let clusterId;
    do clusterId = randomBytes(16).toString('base64url');
    while (clusterId.startsWith('-'));
    const format = java([
      '-Xmx256m',
      logging,
      '-cp',
      classpath,
      'kafka.tools.StorageTool',
      'format',
      '-t',
      clusterId,
      '-c',
      properties,
    ]);
    if (format.error || format.status !== 0) {
      throw new Error(
        `${label}: formatting the storage failed` +
          (format.error ? `: ${format.error.message}` : `:\n${format.stdout}${format.stderr}`),
      );
    }
    pid = launch(broker, dir, properties, logging);
    say(`${label}: started (pid ${pid}), data and logs in ${dir}`);
  }
  const deadline = Date.now() + Number(process.env.QUEUEBOX_KAFKA_START_TIMEOUT_MS ?? 180_000);
  while (!(await answers(broker))) {
    if (runningPid(broker) === undefined) {
      throw new Error(`${label} exited while starting; the end of its log:\n${logTail(dir)}`);
    }
    if (Date.now() > deadline) {
      throw new Error(
        `${label} did not answer a metadata request in time; its log:\n${logTail(dir)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  say(`${label} answers on ${HOST}:${broker.port} (pid ${pid})`);
  for (const variable of broker.variables) console.log(`export ${variable}=${HOST}:${broker.port}`);
  for (const variable of broker.saslVariables) {
    console.log(`export ${variable}=${HOST}:${broker.port + 2}`);
  }
}

/** Starts the broker's JVM in the background and records its pid; returns the pid. */
function launch(broker, dir, properties, logging) {
  const classpath = `${libs(broker)}/*`;
  {
    const out = openSync(join(dir, 'stdout.log'), 'a');
    const child = spawn(
      'java',
      [
        HEAP,
        HEAP.replace('-Xmx', '-Xms'),
        '-XX:MaxDirectMemorySize=256m',
        '-XX:+UseG1GC',
        '-XX:MaxGCPauseMillis=20',
        '-XX:+ExitOnOutOfMemoryError',
        '-Djava.awt.headless=true',
        logging,
        '-cp',
        classpath,
        'kafka.Kafka',
        properties,
      ],
      { detached: true, stdio: ['ignore', out, out] },
    );
    closeSync(out);
    child.unref();
    writeFileSync(join(dir, 'pid'), `${child.pid}\n`);
    return child.pid;
  }
}

function logTail(dir) {
  for (const name of ['server.log', 'stdout.log']) {
    const file = join(dir, name);
    if (existsSync(file)) return readFileSync(file, 'utf8').split('\n').slice(-30).join('\n');
  }
  return '(no log)';
}

async function stop(broker) {
  const pid = runningPid(broker);
  if (pid === undefined) {
    say(`Kafka ${broker.version}: not running`);
    rmSync(stateDir(broker), { recursive: true, force: true });
    return;
  }
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + 30_000;
  while (runningPid(broker) !== undefined && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  if (runningPid(broker) !== undefined) {
    say(`Kafka ${broker.version}: still running 30 s after SIGTERM, sending SIGKILL`);
    process.kill(pid, 'SIGKILL');
  }
  rmSync(stateDir(broker), { recursive: true, force: true });
  say(`Kafka ${broker.version}: stopped (pid ${pid})`);
}

/** SIGKILL, as a crash or the OOM killer ends a broker: its data stays for `start --keep-data`. */
async function kill(broker) {
  const pid = runningPid(broker);
  if (pid === undefined) {
    say(`Kafka ${broker.version}: not running`);
    return;
  }
  process.kill(pid, 'SIGKILL');
  const deadline = Date.now() + 30_000;
  while (runningPid(broker) !== undefined && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  say(`Kafka ${broker.version}: killed (pid ${pid}), data kept in ${stateDir(broker)}`);
}

async function main() {
  const args = process.argv.slice(2);
  const keepData = args.includes('--keep-data');
  const [command, ...names] = args.filter((arg) => arg !== '--keep-data');
  const chosen = (names.length > 0 ? names : Object.keys(BROKERS)).map((name) => {
    const broker = BROKERS[name];
    if (!broker)
      throw new Error(`unknown broker "${name}": choose from ${Object.keys(BROKERS).join(', ')}`);
    return broker;
  });
  switch (command) {
    case 'start':
      for (const broker of chosen) await start(broker, { keepData });
      return;
    case 'kill':
      for (const broker of chosen) await kill(broker);
      return;
    case 'stop':
      for (const broker of chosen) await stop(broker);
      return;
    case 'status':
      for (const broker of chosen) {
        const pid = runningPid(broker);
        say(
          `Kafka ${broker.version} on ${HOST}:${broker.port}: ` +
            (pid === undefined
              ? 'not running'
              : `pid ${pid}, ${(await answers(broker)) ? 'answers' : 'not answering'}`),
        );
      }
      return;
    default:
      throw new Error('usage: broker.mjs start [--keep-data]|stop|kill|status [4|3.9 ...]');
  }
}

main().catch((error) => {
  say(`kafka: ${error.message}`);
  process.exit(1);
});
