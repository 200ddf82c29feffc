import { describe, expect, it } from 'vitest';
import { Secret, silentLogger, type KafkaSecurityConfig, type LogFields } from '@queuebox/core';
import { brokerList, clientConfig, CONNECT_TIMEOUT_MS, securityOptions } from './connection.js';
import { logLevel } from './kafkajs.js';

const security = (overrides: Partial<KafkaSecurityConfig> = {}): KafkaSecurityConfig => ({
  securityProtocol: 'PLAINTEXT',
  saslMechanism: null,
  saslUsername: null,
  saslPassword: null,
  ...overrides,
});

const sasl = (protocol: 'SASL_PLAINTEXT' | 'SASL_SSL', mechanism: string) =>
  security({
    securityProtocol: protocol,
    saslMechanism: mechanism,
    saslUsername: 'svc',
    saslPassword: new Secret('pw'),
  });

describe('securityOptions: securityProtocol and SASL to kafkajs', () => {
  it('PLAINTEXT: no TLS and no SASL', () => {
    expect(securityOptions(security(), 'destinations.d')).toEqual({});
  });

  it('SSL: TLS with Node’s default trust store and host name check, no SASL', () => {
    expect(securityOptions(security({ securityProtocol: 'SSL' }), 'destinations.d')).toEqual({
      ssl: true,
    });
  });

  it('SASL_PLAINTEXT and SASL_SSL with PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512', () => {
    const expected = {
      PLAIN: 'plain',
      'SCRAM-SHA-256': 'scram-sha-256',
      'SCRAM-SHA-512': 'scram-sha-512',
    };
    for (const [name, mechanism] of Object.entries(expected)) {
      expect(securityOptions(sasl('SASL_PLAINTEXT', name), 'destinations.d')).toEqual({
        sasl: { mechanism, username: 'svc', password: 'pw' },
      });
      expect(securityOptions(sasl('SASL_SSL', name), 'destinations.d')).toEqual({
        ssl: true,
        sasl: { mechanism, username: 'svc', password: 'pw' },
      });
    }
    // Kafka spells mechanisms in capitals; another letter case or spaces around still map.
    expect(securityOptions(sasl('SASL_SSL', ' scram-sha-512 '), 'x')).toMatchObject({
      sasl: { mechanism: 'scram-sha-512' },
    });
  });

  it('ignores SASL keys under a protocol without SASL', () => {
    expect(
      securityOptions({ ...sasl('SASL_SSL', 'PLAIN'), securityProtocol: 'SSL' }, 'destinations.d'),
    ).toEqual({ ssl: true });
  });

  it('refuses a mechanism kafkajs does not speak, naming the key and not the password', () => {
    for (const mechanism of ['GSSAPI', 'OAUTHBEARER', 'SCRAM-SHA-1', '']) {
      expect(() => securityOptions(sasl('SASL_SSL', mechanism), 'sources.orders')).toThrow(
        `sources.orders.saslMechanism: QueueBox's Kafka client speaks PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512, not '${mechanism}'`,
      );
    }
  });
});

describe('clientConfig', () => {
  it('splits the bootstrap servers on commas, trimmed, blanks dropped', () => {
    expect(brokerList(' a:9092, b:9093 ,,c:9094 ')).toEqual(['a:9092', 'b:9093', 'c:9094']);
  });

  it('sets the client id, the timeouts, the security options and a logger at debug', () => {
    const lines: string[] = [];
    const logger = {
      ...silentLogger,
      debug: (text: string, _fields?: LogFields) => lines.push(text),
    };
    const config = clientConfig({
      clientId: 'queuebox-destination-d',
      path: 'destinations.d',
      bootstrapServers: 'k1:9092,k2:9092',
      security: sasl('SASL_SSL', 'SCRAM-SHA-256'),
      requestTimeoutMs: 29_000,
      logger,
    });
    expect(config).toMatchObject({
      clientId: 'queuebox-destination-d',
      brokers: ['k1:9092', 'k2:9092'],
      ssl: true,
      sasl: { mechanism: 'scram-sha-256', username: 'svc', password: 'pw' },
      connectionTimeout: CONNECT_TIMEOUT_MS,
      requestTimeout: 29_000,
      enforceRequestTimeout: true,
      logLevel: logLevel.WARN,
    });
    config.logCreator!(logLevel.WARN)({
      namespace: 'Producer',
      level: logLevel.ERROR,
      label: 'ERROR',
      log: { timestamp: '', logger: 'kafkajs', message: 'Failed: https://u:secret@host' },
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^kafkajs Producer: Failed: /);
    expect(lines[0]).not.toContain('secret');
  });
});
