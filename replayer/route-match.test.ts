import { describe, expect, it } from 'vitest';
import { matchRoute } from './route-match.js';

const ORIGIN = 'http://127.0.0.1:4173';

describe('matchRoute', () => {
  it('reads numeric ids, uuids, hex ids and timestamps in the path as placeholders', () => {
    expect(matchRoute({ origin: ORIGIN, path: '/orders/123', query: '' }, `${ORIGIN}/orders/456`)).toEqual({ kind: 'match' });
    expect(matchRoute({ origin: ORIGIN, path: '/u/3f2504e0-4f89-11d3-9a0c-0305e82c3301/edit', query: '' }, `${ORIGIN}/u/9b2c1f00-0000-4000-8000-000000000001/edit`)).toEqual({ kind: 'match' });
    expect(matchRoute({ origin: ORIGIN, path: '/builds/9fceb02d', query: 'at=2024-01-05T10:00:00Z' }, `${ORIGIN}/builds/a1b2c3d4?at=2025-02-01T08:00:00Z`)).toEqual({ kind: 'match' });
  });

  it('counts other query values, and names what differs', () => {
    expect(matchRoute({ origin: ORIGIN, path: '/settings', query: 'tab=a' }, `${ORIGIN}/settings?tab=b`)).toEqual({
      kind: 'mismatch',
      detail: `query differs: expected ${ORIGIN}/settings?tab=a, found ${ORIGIN}/settings?tab=b`,
    });
  });

  it('ignores the fragment, a trailing slash and query order', () => {
    expect(matchRoute({ origin: ORIGIN, path: '/list/', query: 'a=1&b=x' }, `${ORIGIN}/list?b=x&a=1#/active`)).toEqual({ kind: 'match' });
  });

  it('refuses another origin or path', () => {
    expect(matchRoute({ origin: ORIGIN, path: '/', query: '' }, 'http://127.0.0.1:9999/')).toMatchObject({ kind: 'mismatch', detail: expect.stringMatching(/^origin differs/) });
    expect(matchRoute({ origin: ORIGIN, path: '/orders/123', query: '' }, `${ORIGIN}/orders/123/edit`)).toMatchObject({ kind: 'mismatch', detail: expect.stringMatching(/^path differs/) });
    expect(matchRoute({ origin: ORIGIN, path: '/wizard/step-1', query: '' }, `${ORIGIN}/wizard/step-2`).kind).toBe('mismatch');
  });

  it('refuses a page without an origin', () => {
    expect(matchRoute({ origin: ORIGIN, path: '/', query: '' }, 'about:blank')).toEqual({ kind: 'mismatch', detail: `expected ${ORIGIN}/, found about:blank` });
  });
});
