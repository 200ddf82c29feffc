/**
 * The dead-letter console in the browser: plain DOM, no framework, no dependency. It calls the
 * `/admin` API relative to the page, with the bearer token or API key the operator entered once
 * (kept in sessionStorage, so it dies with the tab). Everything a row holds is shown through
 * textContent, never as markup: payloads and errors are other people's text.
 */

// A module (loaded with type="module"), so its names never collide with window's globals.
export {};

type Table = 'outbox' | 'inbox';

interface Row {
  readonly id: string;
  readonly state: string;
  readonly topic?: string;
  readonly source?: string;
  readonly attempt: number;
  readonly createdAt: string;
  readonly lastError: string | null;
}

interface DeadGroup {
  readonly topic?: string;
  readonly source?: string;
  readonly reason: string;
  readonly count: number;
}

interface TableStats {
  readonly byState: Record<string, number>;
  readonly deadBy: DeadGroup[];
}

const STORAGE_KEY = 'queuebox.console.credential';
const authKind = document.body.dataset.auth ?? 'none';
const apiKeyHeader = document.body.dataset.header ?? 'X-API-Key';

function element<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (found === null) throw new Error(`The page has no #${id}`);
  return found as T;
}

const status = element<HTMLParagraphElement>('status');
const credentialInput = element<HTMLInputElement>('credential');
const filterTable = element<HTMLSelectElement>('filter-table');
const filterState = element<HTMLSelectElement>('filter-state');
const filterGroup = element<HTMLInputElement>('filter-group');
const filterQ = element<HTMLInputElement>('filter-q');
const nextButton = element<HTMLButtonElement>('next');
const replayPage = element<HTMLButtonElement>('replay-page');
const discardPage = element<HTMLButtonElement>('discard-page');

let shownTable: Table = 'outbox';
let shownRows: Row[] = [];
let nextCursor: string | null = null;
let detailId: string | null = null;

function say(text: string, error = false): void {
  status.textContent = text;
  status.className = error ? 'error' : '';
}

function credentialHeaders(): Record<string, string> {
  const credential = sessionStorage.getItem(STORAGE_KEY) ?? '';
  if (credential === '') return {};
  if (authKind === 'bearer') return { Authorization: `Bearer ${credential}` };
  if (authKind === 'api-key') return { [apiKeyHeader]: credential };
  return {};
}

async function call<T>(path: string, body?: unknown): Promise<T> {
  const init: RequestInit = { headers: { ...credentialHeaders() }, cache: 'no-store' };
  if (body !== undefined) {
    init.method = 'POST';
    init.body = JSON.stringify(body);
    init.headers = { ...credentialHeaders(), 'Content-Type': 'application/json' };
  }
  const response = await fetch(new URL(path, location.href), init);
  const answer = (await response.json()) as T & { error?: string };
  if (!response.ok) throw new Error(answer.error ?? `HTTP ${response.status}`);
  return answer;
}

function cell(text: string, className?: string): HTMLTableCellElement {
  const td = document.createElement('td');
  td.textContent = text;
  if (className !== undefined) td.className = className;
  return td;
}

function replaceBody(tableId: string, rows: HTMLTableRowElement[]): void {
  const body = element<HTMLTableElement>(tableId).tBodies[0]!;
  body.replaceChildren(...rows);
}

async function loadStats(): Promise<void> {
  const stats = await call<Record<Table, TableStats>>('stats');
  replaceBody(
    'counts',
    (['outbox', 'inbox'] as const).map((table) => {
      const tr = document.createElement('tr');
      const by = stats[table].byState;
      const done = table === 'outbox' ? by.sent : by.processed;
      tr.dataset.table = table;
      tr.append(
        cell(table),
        ...[by.pending, by.processing, done, by.dead].map((n) => cell(String(n ?? 0))),
      );
      return tr;
    }),
  );
  replaceBody(
    'dead-groups',
    (['outbox', 'inbox'] as const).flatMap((table) =>
      stats[table].deadBy.map((group) => {
        const name = group.topic ?? group.source ?? '';
        const tr = document.createElement('tr');
        tr.className = 'clickable';
        tr.append(cell(table), cell(name), cell(group.reason, 'error'), cell(String(group.count)));
        tr.addEventListener('click', () => {
          filterTable.value = table;
          filterState.value = 'dead';
          filterGroup.value = name;
          filterQ.value = group.reason === '(no error)' ? '' : group.reason;
          void search(null);
        });
        return tr;
      }),
    ),
  );
}

function listPath(cursor: string | null): string {
  const table = filterTable.value as Table;
  const query = new URLSearchParams();
  if (filterState.value !== '') query.set('state', filterState.value);
  if (filterGroup.value.trim() !== '')
    query.set(table === 'outbox' ? 'topic' : 'source', filterGroup.value.trim());
  if (filterQ.value !== '') query.set('q', filterQ.value);
  query.set('limit', '50');
  if (cursor !== null) query.set('cursor', cursor);
  return `${table}?${query.toString()}`;
}

async function search(cursor: string | null): Promise<void> {
  try {
    const page = await call<{ rows: Row[]; nextCursor: string | null }>(listPath(cursor));
    shownTable = filterTable.value as Table;
    shownRows = page.rows;
    nextCursor = page.nextCursor;
    replaceBody(
      'rows',
      page.rows.map((row) => {
        const tr = document.createElement('tr');
        const open = document.createElement('button');
        open.type = 'button';
        open.className = 'link';
        open.textContent = row.id;
        open.addEventListener('click', () => void showDetail(shownTable, row.id));
        const idCell = document.createElement('td');
        idCell.append(open);
        tr.dataset.id = row.id;
        tr.append(
          idCell,
          cell(row.state),
          cell(row.topic ?? row.source ?? ''),
          cell(String(row.attempt)),
          cell(row.createdAt),
          cell(row.lastError ?? '', 'error'),
        );
        return tr;
      }),
    );
    nextButton.hidden = nextCursor === null;
    const dead = shownRows.some((row) => row.state === 'dead');
    replayPage.hidden = !dead;
    discardPage.hidden = !dead;
    say(`${page.rows.length} row(s)${nextCursor === null ? '' : ', more on the next page'}.`);
  } catch (error: unknown) {
    say(messageOf(error), true);
  }
}

async function showDetail(table: Table, id: string): Promise<void> {
  try {
    const row = await call<Record<string, unknown>>(`${table}/${id}`);
    detailId = id;
    element('detail-id').textContent = `${table} ${id}`;
    element('detail').textContent = JSON.stringify(row, null, 2);
    element('detail-section').hidden = false;
    say(`Showing ${table} row ${id}.`);
  } catch (error: unknown) {
    say(messageOf(error), true);
  }
}

async function replay(ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const path = shownTable === 'outbox' ? 'replay' : 'inbox/replay';
  try {
    const { moved } = await call<{ moved: number }>(path, { ids });
    await afterWrite(`Replayed: ${moved} row(s) moved back to pending.`);
  } catch (error: unknown) {
    say(messageOf(error), true);
  }
}

async function discard(ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  if (!window.confirm(`Delete ${ids.length} dead ${shownTable} row(s) for good?`)) return;
  try {
    const { discarded } = await call<{ discarded: number }>(`${shownTable}/discard`, {
      ids,
      confirm: true,
    });
    await afterWrite(`Discarded ${discarded} dead row(s).`);
  } catch (error: unknown) {
    say(messageOf(error), true);
  }
}

/**
 * Refreshes the view after a write and keeps the write's result in the status line: the refresh
 * says what it now shows, which alone would replace the answer the operator is waiting for.
 */
async function afterWrite(result: string): Promise<void> {
  await refresh();
  if (status.className !== 'error') say(`${result} ${status.textContent ?? ''}`.trim());
}

async function refresh(): Promise<void> {
  try {
    await loadStats();
    if (detailId !== null) await showDetail(shownTable, detailId);
    await search(null);
  } catch (error: unknown) {
    say(messageOf(error), true);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function deadIds(): string[] {
  return shownRows.filter((row) => row.state === 'dead').map((row) => row.id);
}

function start(): void {
  const note = element<HTMLParagraphElement>('auth-note');
  const login = element<HTMLFormElement>('login');
  if (authKind === 'hmac') {
    login.hidden = true;
    note.hidden = false;
    note.textContent =
      'The admin routes use HMAC signatures, which this page cannot make. Set admin.auth to a bearer token or an API key to use the console; the API works with signed requests.';
    return;
  }
  if (authKind === 'none') login.hidden = true;
  element('credential-kind').textContent = authKind === 'bearer' ? 'bearer token' : 'API key';
  login.addEventListener('submit', (event) => {
    event.preventDefault();
    sessionStorage.setItem(STORAGE_KEY, credentialInput.value);
    credentialInput.value = '';
    void refresh();
  });
  element('forget-credential').addEventListener('click', () => {
    sessionStorage.removeItem(STORAGE_KEY);
    say('Credential forgotten.');
  });
  element('filter').addEventListener('submit', (event) => {
    event.preventDefault();
    void search(null);
  });
  element('refresh').addEventListener('click', () => void refresh());
  nextButton.addEventListener('click', () => void search(nextCursor));
  replayPage.addEventListener('click', () => void replay(deadIds()));
  discardPage.addEventListener('click', () => void discard(deadIds()));
  element('replay').addEventListener(
    'click',
    () => void replay(detailId === null ? [] : [detailId]),
  );
  element('discard').addEventListener(
    'click',
    () => void discard(detailId === null ? [] : [detailId]),
  );
  if (authKind === 'none' || sessionStorage.getItem(STORAGE_KEY) !== null) void refresh();
  else say('Enter the admin credential to start.');
}

start();
