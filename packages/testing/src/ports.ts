/** A TCP port that was free a moment ago on 127.0.0.1 and not handed out before in this process, for servers a test starts itself. */
export { freePort } from '@queuebox/dev';
