export * from './bounded-wait.js';
export * from './broker-source.js';
export * from './destination-publisher.js';
export * from './broker-provider.js';
