// `pnpm docs:config`: writes docs/configuration.md from the built schema and the brokers' blocks.
// The brokers are listed in the order of their sections in the spec (§6.2–§6.4).
import { writeFileSync } from 'node:fs';
import { descriptor as rabbitmq } from '@queuebox/rabbitmq/descriptor';
import { descriptor as kafka } from '@queuebox/kafka/descriptor';
import { descriptor as nats } from '@queuebox/nats/descriptor';
import { DOCUMENT, renderConfigurationDoc } from '../dist/docs/render.js';

writeFileSync(DOCUMENT, renderConfigurationDoc([rabbitmq, kafka, nats]));
console.log(`wrote ${DOCUMENT}`);
