import { describe, expect, it } from 'vitest';
import {
  VOLATILE_RULE_NAMES,
  comparableText,
  isVolatileSegment,
  looksLikeDateOrTime,
  looksLikeMintedToken,
  normalizeVolatileText,
  sameText,
} from './volatile-text.js';

describe('normalizeVolatileText', () => {
  it.each([
    ['Saved at 10:31', 'Saved at {time}'],
    ['Saved at 10:31:07 PM', 'Saved at {time}'],
    ['Meeting at 9am', 'Meeting at {time}'],
    ['Created 2024-01-05T10:00:00Z', 'Created {datetime}'],
    ['Due 2024-01-05', 'Due {date}'],
    ['Due 05/01/2024', 'Due {date}'],
    ['Due 5.1.2024', 'Due {date}'],
    ['Posted Jan 5, 2024', 'Posted {date}'],
    ['Posted 5th March', 'Posted {date}'],
    ['Posted Monday', 'Posted {date}'],
    ['Edited 5 minutes ago', 'Edited {ago}'],
    ['Edited an hour ago', 'Edited {ago}'],
    ['Edited just now', 'Edited {ago}'],
    ['Finished in 1.5s', 'Finished in {duration}'],
    ['Took 2h 15m', 'Took {duration}'],
    ['Took 250 ms', 'Took {duration}'],
    ['Order 3f2504e0-4f89-11d3-9a0c-0305e82c3301', 'Order {id}'],
    ['Commit 9fceb02d0ae598e95dc970b74767f19372d61af8', 'Commit {id}'],
    ['Issue #4521', 'Issue #{id}'],
    ['Order ID: 4521', 'Order ID: {id}'],
    ['Invoice 20240105123', 'Invoice {id}'],
    ['Session V1StGXR8_Z5jdHi6B-myT', 'Session {id}'],
  ])('reads %j as %j', (input, expected) => {
    expect(normalizeVolatileText(input)).toBe(expected);
  });

  it.each([
    '2 items left',
    '1 item left',
    'Total: $19.99',
    'Total: 1,234',
    'Copyright 2024',
    'Ships in 5 days',
    'my-great-article-2024',
    'Step 3 of 5',
    'Add to cart',
  ])('keeps %j as it is, so a changed count or total is caught', (input) => {
    expect(normalizeVolatileText(input)).toBe(input);
  });

  it('tells two counts apart but not two clock times', () => {
    expect(sameText('2 items left', '3 items left')).toBe(false);
    expect(sameText('Saved at 10:31', 'saved at 11:02')).toBe(true);
  });

  it('folds case and spacing for comparison', () => {
    expect(comparableText('  Add   To Cart ')).toBe('add to cart');
  });

  it('documents its rules in order', () => {
    expect(VOLATILE_RULE_NAMES[0]).toBe('iso date-time');
    expect(VOLATILE_RULE_NAMES).toContain('minted token');
  });
});

describe('isVolatileSegment', () => {
  it.each(['123', '3f2504e0-4f89-11d3-9a0c-0305e82c3301', '9fceb02d', '2024-01-05', 'ord_123', 'cus_9s6XKzkNRiz8i3', 'V1StGXR8_Z5jdHi6B-myT'])(
    'reads %j as an id',
    (segment) => {
      expect(isVolatileSegment(segment)).toBe(true);
    },
  );

  it.each(['orders', 'edit', 'step-1', 'blue-shirt-42', 'settings', ''])('reads %j literally', (segment) => {
    expect(isVolatileSegment(segment)).toBe(false);
  });
});

describe('value shapes', () => {
  it('spots dates and times but not counts', () => {
    expect(looksLikeDateOrTime('2024-06-01')).toBe(true);
    expect(looksLikeDateOrTime('10:30')).toBe(true);
    expect(looksLikeDateOrTime('3 apples')).toBe(false);
  });

  it('spots minted tokens but not made-up phone numbers or words', () => {
    expect(looksLikeMintedToken('3f2504e0-4f89-11d3-9a0c-0305e82c3301')).toBe(true);
    expect(looksLikeMintedToken('code a1b2c3d4e5')).toBe(true);
    expect(looksLikeMintedToken('5551234567')).toBe(false);
    expect(looksLikeMintedToken('Buy milk')).toBe(false);
  });
});
