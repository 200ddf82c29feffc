import { describe, expect, it } from 'vitest';
import { renderKafkaKey } from './key-template.js';

describe('renderKafkaKey', () => {
  it('replaces exactly {{ topic }} and {{ key }}', () => {
    expect(renderKafkaKey('{{ key }}', { topic: 't', key: 'k-1' })).toBe('k-1');
    expect(renderKafkaKey('{{ topic }}:{{ key }}', { topic: 't', key: 'k' })).toBe('t:k');
    expect(renderKafkaKey('{{key}}|{{topic}}', { topic: 't', key: 'k' })).toBe('{{key}}|{{topic}}');
  });

  it('renders a missing key as empty', () => {
    expect(renderKafkaKey('{{ topic }}-{{ key }}', { topic: 't', key: null })).toBe('t-');
  });

  it('returns null for a blank result', () => {
    expect(renderKafkaKey('{{ key }}', { topic: 't', key: null })).toBeNull();
    expect(renderKafkaKey(' {{ key }} ', { topic: 't', key: ' ' })).toBeNull();
    expect(renderKafkaKey('', { topic: 't', key: 'k' })).toBeNull();
  });

  it('keeps a non-blank result as rendered', () => {
    expect(renderKafkaKey(' {{ key }}', { topic: 't', key: 'k' })).toBe(' k');
  });
});
