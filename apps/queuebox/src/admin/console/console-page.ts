import { readFile } from 'node:fs/promises';
import type { AdminConfig } from '@queuebox/core';
import type { Hono } from 'hono';
import { CONSOLE_STYLE } from './console-style.js';

/**
 * `GET /admin/console`: a static page, its script and its style. The page holds no data and no
 * credential; every row it shows comes from the authenticated `/admin` API, with the bearer
 * token or API key the operator enters once (kept in the tab's sessionStorage). The script is
 * built from apps/queuebox/console into dist/console, read once and kept.
 */
export function consolePage(app: Hono, admin: AdminConfig): void {
  const auth = admin.auth;
  const kind = auth === null ? 'none' : auth.type;
  const header = auth !== null && auth.type === 'api-key' ? auth.headerName : '';
  const html = page(kind, header);
  let script: Promise<string> | undefined;

  app.get('/admin/console', (c) => c.html(html));
  app.get('/admin/console/app.css', (c) =>
    c.body(CONSOLE_STYLE, 200, { 'Content-Type': 'text/css; charset=utf-8' }),
  );
  app.get('/admin/console/app.js', async (c) => {
    script ??= readFile(new URL('../../../dist/console/app.js', import.meta.url), 'utf8');
    try {
      return c.body(await script, 200, { 'Content-Type': 'text/javascript; charset=utf-8' });
    } catch {
      script = undefined;
      return c.json({ error: 'The console script is not built: run pnpm build.' }, 500);
    }
  });
}

function escapeAttribute(text: string): string {
  return text.replace(/[&"<>]/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

function page(kind: string, header: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>QueueBox console</title>
<link rel="stylesheet" href="console/app.css">
</head>
<body data-auth="${escapeAttribute(kind)}" data-header="${escapeAttribute(header)}">
<header>
  <h1>QueueBox console</h1>
  <form id="login" autocomplete="off">
    <label>Admin <span id="credential-kind"></span> <input id="credential" type="password"></label>
    <button id="save-credential" type="submit">Use</button>
    <button id="forget-credential" type="button">Forget</button>
  </form>
  <p id="auth-note" hidden></p>
</header>
<main>
  <p id="status" role="status"></p>
  <section>
    <h2>Counts by state</h2>
    <table id="counts"><thead><tr><th>Table</th><th>pending</th><th>processing</th><th>sent / processed</th><th>dead</th></tr></thead><tbody></tbody></table>
    <button id="refresh" type="button">Refresh</button>
  </section>
  <section>
    <h2>Dead rows by topic or source and reason</h2>
    <table id="dead-groups"><thead><tr><th>Table</th><th>Topic / source</th><th>Reason</th><th>Rows</th></tr></thead><tbody></tbody></table>
  </section>
  <section>
    <h2>Rows</h2>
    <form id="filter">
      <label>Table <select id="filter-table"><option value="outbox">outbox</option><option value="inbox">inbox</option></select></label>
      <label>State <select id="filter-state"><option value="dead">dead</option><option value="pending">pending</option><option value="processing">processing</option><option value="sent">sent</option><option value="processed">processed</option><option value="">any</option></select></label>
      <label>Topic / source <input id="filter-group"></label>
      <label>Error contains <input id="filter-q"></label>
      <button id="search" type="submit">Search</button>
    </form>
    <table id="rows"><thead><tr><th>Id</th><th>State</th><th>Topic / source</th><th>Attempt</th><th>Created</th><th>Last error</th></tr></thead><tbody></tbody></table>
    <button id="next" type="button" hidden>Next page</button>
    <button id="replay-page" type="button" hidden>Replay these dead rows</button>
    <button id="discard-page" type="button" hidden>Discard these dead rows</button>
  </section>
  <section id="detail-section" hidden>
    <h2>Message <span id="detail-id"></span></h2>
    <pre id="detail"></pre>
    <button id="replay" type="button">Replay</button>
    <button id="discard" type="button">Discard</button>
  </section>
</main>
<script type="module" src="console/app.js"></script>
</body>
</html>
`;
}
