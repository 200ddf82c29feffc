/**
 * Just enough of PromQL and of the Prometheus text format to check that a dashboard or a rule
 * file names only series a real scrape has: the metric selectors of an expression (name and
 * label matchers) and the samples of a scrape.
 */
export interface Matcher {
  readonly label: string;
  readonly op: '=' | '!=' | '=~' | '!~';
  readonly value: string;
}

export interface Selector {
  readonly metric: string;
  readonly matchers: readonly Matcher[];
  /** As written, for messages. */
  readonly text: string;
}

export interface Sample {
  readonly metric: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

// A QueueBox or pool family name, not inside a string (`job="queuebox"`) or a longer word.
const SELECTOR = /(?<![\w"$.:])((?:queuebox|hikaricp)(?:_[a-z0-9_]+)?)\b(\{[^}]*\})?/g;
const MATCHER = /([a-zA-Z_]\w*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"/g;
const LABEL = /([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g;

export function selectorsOf(expr: string): Selector[] {
  return [...expr.matchAll(SELECTOR)].map((match) => ({
    metric: match[1] ?? '',
    matchers: [...(match[2] ?? '').matchAll(MATCHER)].map((m) => ({
      label: m[1] ?? '',
      op: (m[2] ?? '=') as Matcher['op'],
      value: m[3] ?? '',
    })),
    text: match[0],
  }));
}

export function parseScrape(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (match === null) continue;
    const labels: Record<string, string> = {};
    for (const label of (match[2] ?? '').matchAll(LABEL)) labels[label[1] ?? ''] = label[2] ?? '';
    samples.push({ metric: match[1] ?? '', labels, value: Number(match[3]) });
  }
  return samples;
}

function matches(sample: Sample, matcher: Matcher): boolean {
  const actual = sample.labels[matcher.label] ?? '';
  switch (matcher.op) {
    case '=':
      return actual === matcher.value;
    case '!=':
      return actual !== matcher.value;
    case '=~':
      return new RegExp(`^(?:${matcher.value})$`).test(actual);
    case '!~':
      return !new RegExp(`^(?:${matcher.value})$`).test(actual);
  }
}

/** The samples a selector picks from a scrape. */
export function select(samples: readonly Sample[], selector: Selector): Sample[] {
  return samples.filter(
    (sample) =>
      sample.metric === selector.metric && selector.matchers.every((m) => matches(sample, m)),
  );
}
