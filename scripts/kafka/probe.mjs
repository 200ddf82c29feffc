// Asks a Kafka broker, over its own protocol, which API versions it serves (ApiVersions v0, which
// every broker answers) and which brokers its cluster advertises (Metadata, at a version the
// broker lists). No client library: the start script must tell whether the broker answers
// without depending on the client under test.
import { connect } from 'node:net';

const API_VERSIONS = 18;
const METADATA = 3;

/**
 * Resolves `{ apis, brokers }` once the broker at host:port answered both requests: `apis` maps
 * an API key to `[min, max]`, `brokers` lists `{ nodeId, host, port }`. Rejects on a refused or
 * closed connection, a malformed answer, or no answer within `timeoutMs`.
 */
export function probeBroker(host, port, timeoutMs = 3000) {
  return new Promise((resolvePromise, rejectPromise) => {
    const socket = connect({ host, port });
    let buffer = Buffer.alloc(0);
    let apis = null;
    const timer = setTimeout(
      () => finish(new Error(`no answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const finish = (error, value) => {
      clearTimeout(timer);
      socket.destroy();
      if (error) rejectPromise(error);
      else resolvePromise(value);
    };
    socket.once('error', (error) => finish(error));
    socket.once('close', () => finish(new Error('the broker closed the connection')));
    socket.once('connect', () => socket.write(request(API_VERSIONS, 0, 1, Buffer.alloc(0))));
    socket.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      while (buffer.length >= 4 && buffer.length >= 4 + buffer.readInt32BE(0)) {
        const frame = buffer.subarray(4, 4 + buffer.readInt32BE(0));
        buffer = buffer.subarray(4 + frame.length);
        try {
          if (apis === null) {
            apis = readApiVersions(frame);
            const version = metadataVersion(apis);
            socket.write(request(METADATA, version, 2, metadataBody(version)));
          } else {
            finish(null, { apis, brokers: readBrokers(frame) });
          }
        } catch (error) {
          finish(error);
        }
      }
    });
  });
}

function request(apiKey, version, correlationId, body) {
  const clientId = Buffer.from('queuebox-kafka-probe');
  const header = Buffer.alloc(10);
  header.writeInt16BE(apiKey, 0);
  header.writeInt16BE(version, 2);
  header.writeInt32BE(correlationId, 4);
  header.writeInt16BE(clientId.length, 8);
  const payload = Buffer.concat([header, clientId, body]);
  const size = Buffer.alloc(4);
  size.writeInt32BE(payload.length, 0);
  return Buffer.concat([size, payload]);
}

function readApiVersions(frame) {
  const error = frame.readInt16BE(4);
  if (error !== 0) throw new Error(`ApiVersions answered error code ${error}`);
  const count = frame.readInt32BE(6);
  const apis = new Map();
  for (let i = 0, at = 10; i < count; i++, at += 6) {
    apis.set(frame.readInt16BE(at), [frame.readInt16BE(at + 2), frame.readInt16BE(at + 4)]);
  }
  return apis;
}

// Metadata v4 to v8 share one layout up to the broker list (later versions are "flexible" and
// encoded differently); every broker from 1.0 to 4.x serves one of them.
function metadataVersion(apis) {
  const range = apis.get(METADATA);
  if (!range) throw new Error('the broker lists no Metadata API');
  const version = Math.max(4, range[0]);
  if (version > Math.min(8, range[1])) {
    throw new Error(`the broker serves Metadata v${range[0]}-v${range[1]} only`);
  }
  return version;
}

function metadataBody(version) {
  // No topic (an empty array, not null: null would list every topic), no auto-creation, and from
  // v8 no authorized-operations lists.
  const body = Buffer.alloc(version >= 8 ? 7 : 5);
  body.writeInt32BE(0, 0);
  return body;
}

function readBrokers(frame) {
  let at = 8; // correlation id, throttle time
  const count = frame.readInt32BE(at);
  at += 4;
  const brokers = [];
  for (let i = 0; i < count; i++) {
    const nodeId = frame.readInt32BE(at);
    const hostLength = frame.readInt16BE(at + 4);
    const host = frame.toString('utf8', at + 6, at + 6 + hostLength);
    at += 6 + hostLength;
    const port = frame.readInt32BE(at);
    const rackLength = frame.readInt16BE(at + 4);
    at += 6 + Math.max(0, rackLength);
    brokers.push({ nodeId, host, port });
  }
  return brokers;
}
