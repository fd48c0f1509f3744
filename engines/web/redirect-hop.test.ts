import { describe, expect, it } from 'vitest';
import { isHttpUrl, redirectTarget } from './redirect-hop.js';

describe('redirectTarget', () => {
  it('resolves the Location of every status a browser follows against the URL that answered', () => {
    for (const status of [301, 302, 303, 307, 308]) {
      expect(redirectTarget(status, '/next?x=1', 'http://127.0.0.1:4173/a/b')).toBe('http://127.0.0.1:4173/next?x=1');
    }
    expect(redirectTarget(302, '//other.test/p', 'https://app.test/')).toBe('https://other.test/p');
    expect(redirectTarget(302, 'http://127.0.0.1:9/', 'http://127.0.0.1:4173/')).toBe('http://127.0.0.1:9/');
  });

  it('sees no redirect in other statuses or without a Location', () => {
    expect(redirectTarget(300, 'http://other.test/', 'http://app.test/')).toBeUndefined();
    expect(redirectTarget(304, 'http://other.test/', 'http://app.test/')).toBeUndefined();
    expect(redirectTarget(200, 'http://other.test/', 'http://app.test/')).toBeUndefined();
    expect(redirectTarget(302, undefined, 'http://app.test/')).toBeUndefined();
  });

  it('hands back a Location that does not parse as written, for the policy to refuse', () => {
    expect(redirectTarget(302, 'http://[::1', 'http://app.test/')).toBe('http://[::1');
  });
});

describe('isHttpUrl', () => {
  it('is true only for http and https', () => {
    expect(['http://a.test/', 'https://a.test/', 'file:///etc/hosts', 'data:text/html,x', 'about:blank'].map(isHttpUrl)).toEqual([true, true, false, false, false]);
  });
});
