import { describe, expect, it } from 'vitest';
import { JsonPayload } from './json-payload.js';
import type { Json } from './model.js';
import {
  addressTemplateProblems,
  renderSourceTopic,
  renderTemplate,
  type TemplateFields,
} from './template.js';

function row(payload: Json, overrides: Partial<TemplateFields> = {}): TemplateFields {
  return {
    topic: 'orders.created',
    key: null,
    aggregateType: null,
    payload: JsonPayload.fromValue(payload),
    ...overrides,
  };
}

/** A row whose payload is stored text, as the claim returns it (`payload::text`). */
function stored(text: string): TemplateFields {
  return row(null, { payload: JsonPayload.fromText(text) });
}

/** `{{ payload.<path> }}` renders as the text given with each path. */
function expectPayloadRenders(fields: TemplateFields, texts: Readonly<Record<string, string>>) {
  for (const [path, text] of Object.entries(texts)) {
    expect(renderTemplate(`{{ payload.${path} }}`, fields, 'd'), path).toBe(text);
  }
}

describe('renderTemplate (RoutingKeyTemplateContractTest)', () => {
  it('renders the topic with or without inner spaces', () => {
    expect(renderTemplate('{{ topic }}', row({}), 'dflt')).toBe('orders.created');
    expect(renderTemplate('{{topic}}', row({}), 'dflt')).toBe('orders.created');
  });

  it('renders a payload field', () => {
    expect(renderTemplate('{{ payload.region }}', row({ region: 'eu' }), 'dflt')).toBe('eu');
  });

  it('renders a nested data field', () => {
    const payload = { customer: { region: 'de' } };
    expect(renderTemplate('{{ data.customer.region }}', row(payload), 'dflt')).toBe('de');
  });

  it('renders the default for a missing payload field', () => {
    expect(renderTemplate('{{ payload.missingField }}', row({ region: 'eu' }), 'dflt')).toBe(
      'dflt',
    );
  });

  it('renders the default for an unknown placeholder', () => {
    expect(renderTemplate('{{ region }}', row({ region: 'eu' }), 'dflt')).toBe('dflt');
  });
});

describe('renderTemplate', () => {
  it('mixes placeholders and literal text', () => {
    const fields = row({ region: 'eu' }, { key: 'o-1', aggregateType: 'Order' });
    expect(
      renderTemplate('{{aggregateType}}.{{ payload.region }}.{{ key }}-{{  topic  }}', fields, ''),
    ).toBe('Order.eu.o-1-orders.created');
  });

  it('renders the default for a null key or aggregate type', () => {
    expect(renderTemplate('{{ key }}|{{ aggregateType }}', row({}), 'none')).toBe('none|none');
  });

  it('renders primitives as text and structures as compact JSON', () => {
    const payload = { n: 42, f: 1.5, t: true, f2: false, s: 'x y', o: { a: [1, 'b'] }, l: [1, 2] };
    expectPayloadRenders(row(payload), {
      n: '42',
      f: '1.5',
      t: 'true',
      f2: 'false',
      s: 'x y',
      o: '{"a":[1,"b"]}',
      l: '[1,2]',
    });
  });

  it('renders numbers as stored: an integer keeps every digit, other numbers their JSON form', () => {
    const fields = stored(
      '{"id": 12345678901234567890, "near": 9007199254740993, "big": 1000000000000000000000000000000, "amount": 1.50, "neg": -0, "o": {"n": 12345678901234567890, "f": 1.50, "s": "a b"}}',
    );
    expectPayloadRenders(fields, {
      id: '12345678901234567890',
      near: '9007199254740993',
      big: '1000000000000000000000000000000',
      amount: '1.5',
      neg: '0',
      o: '{"n":12345678901234567890,"f":1.50,"s":"a b"}',
      'o.n': '12345678901234567890',
    });
  });

  it('reads the stored text as JSON.parse would: escaped names, escaped strings, the last of two names', () => {
    const fields = stored(
      '{"r\\u0065gion": "x", "region": "e\\u0075", "dup": 1, "dup": 2, "q": "a\\"b"}',
    );
    expect(renderTemplate('{{ payload.region }}', fields, 'd')).toBe('eu');
    expect(renderTemplate('{{ payload.dup }}', fields, 'd')).toBe('2');
    expect(renderTemplate('{{ payload.q }}', fields, 'd')).toBe('a"b');
  });

  it('keeps an empty string, but renders the default for null', () => {
    expect(renderTemplate('[{{ payload.s }}]', row({ s: '', n: null }), 'd')).toBe('[]');
    expect(renderTemplate('[{{ payload.n }}]', row({ s: '', n: null }), 'd')).toBe('[d]');
  });

  it('traverses objects only', () => {
    const payload = { items: [{ id: 'a' }], s: 'text', o: { 'a.b': 'dotted' } };
    expect(renderTemplate('{{ payload.items.0.id }}', row(payload), 'd')).toBe('d');
    expect(renderTemplate('{{ payload.s.length }}', row(payload), 'd')).toBe('d');
    expect(renderTemplate('{{ payload.o.a.b }}', row(payload), 'd')).toBe('d');
    expect(renderTemplate('{{ payload.a..b }}', row({ a: { '': { b: 'x' } } }), 'd')).toBe('d');
    expect(renderTemplate('{{ data.x }}', row([{ x: 1 }]), 'd')).toBe('d');
    expect(renderTemplate('{{ data.x }}', row(null), 'd')).toBe('d');
  });

  it('never reads the prototype chain', () => {
    const fields = row({ a: 1 });
    expect(renderTemplate('{{ payload.constructor }}', fields, 'd')).toBe('d');
    expect(renderTemplate('{{ payload.__proto__ }}', fields, 'd')).toBe('d');
    expect(renderTemplate('{{ payload.toString }}', fields, 'd')).toBe('d');
  });

  it('renders the default for the bare payload and for near-miss names', () => {
    const fields = row({ a: 1 });
    expect(renderTemplate('{{ payload }}', fields, 'd')).toBe('d');
    expect(renderTemplate('{{ Topic }}', fields, 'd')).toBe('d');
    expect(renderTemplate('{{ aggregate_type }}', fields, 'd')).toBe('d');
  });

  it('leaves text that is not a placeholder alone', () => {
    const fields = row({});
    expect(renderTemplate('{ topic }', fields, 'd')).toBe('{ topic }');
    expect(renderTemplate('{{}}', fields, 'd')).toBe('{{}}');
    expect(renderTemplate('{{ topic }', fields, 'd')).toBe('{{ topic }');
    expect(renderTemplate('plain.key', fields, 'd')).toBe('plain.key');
  });

  it('inserts values literally, even with replacement patterns in them', () => {
    expect(renderTemplate('{{ payload.v }}', row({ v: '$& $1 {{ topic }}' }), 'd')).toBe(
      '$& $1 {{ topic }}',
    );
    expect(renderTemplate('{{ region }}', row({}), '$&')).toBe('$&');
  });
});

describe('addressTemplateProblems', () => {
  it('accepts the address fields and payload paths', () => {
    expect(
      addressTemplateProblems(
        'ex.{{ topic }}.{{key}}.{{ aggregateType }}.{{ payload.a.b }}.{{ data.c }}',
      ),
    ).toEqual([]);
    expect(addressTemplateProblems('orders')).toEqual([]);
  });

  it('names every other placeholder once, in order', () => {
    expect(
      addressTemplateProblems('{{ region }}.{{ topic }}.{{payload}}.{{ region }}.{{ tenant }}'),
    ).toEqual(['region', 'payload', 'tenant']);
  });
});

describe('renderSourceTopic', () => {
  const values = { source: 'stripe', eventType: 'invoice.paid' };

  it('replaces source and eventType with or without inner spaces', () => {
    expect(renderSourceTopic('{{ source }}', values)).toBe('stripe');
    expect(renderSourceTopic('{{source}}', values)).toBe('stripe');
    expect(renderSourceTopic('{{ eventType }}', values)).toBe('invoice.paid');
    expect(renderSourceTopic('{{eventType}}', values)).toBe('invoice.paid');
    expect(renderSourceTopic('in.{{source}}.{{ eventType }}', values)).toBe(
      'in.stripe.invoice.paid',
    );
  });

  it('keeps everything else literal', () => {
    expect(renderSourceTopic('{{ topic }}.{{  source  }}.{{ source}}', values)).toBe(
      '{{ topic }}.{{  source  }}.{{ source}}',
    );
  });

  it('renders a missing event type as empty and trims the result', () => {
    expect(renderSourceTopic('{{ eventType }}', { source: 's', eventType: null })).toBe('');
    expect(renderSourceTopic(' {{ eventType }} ', values)).toBe('invoice.paid');
    expect(renderSourceTopic('x.{{ eventType }}', { source: 's', eventType: null })).toBe('x.');
  });

  it('does not re-read a value as a template', () => {
    expect(renderSourceTopic('{{ eventType }}', { source: 's', eventType: '{{ source }}' })).toBe(
      '{{ source }}',
    );
  });
});
