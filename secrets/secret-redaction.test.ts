import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { leakedForms, shortestClippedStart } from '../tests/support/secret-leaks.js';
import { seededKey } from '../tests/support/seeded-text.js';
import { deepTree, nodeById, wideTree } from '../tests/support/page-sized-trees.js';
import { clippedPrefixLength, createSecretRedactor, embeddedBase64Forms, redactDeep } from './redactor.js';

const VALUE = 'Kx9 canary/Vault+81';
const redactor = createSecretRedactor([['canary', VALUE]]);
const { redact } = redactor;

describe('the secret redactor', () => {
  it('catches the value raw and in any letter case', () => {
    expect(redact(`a ${VALUE} b`)).toBe('a <secret:canary> b');
    expect(redact(VALUE.toUpperCase())).toBe('<secret:canary>');
    expect(redact(VALUE.toLowerCase())).toBe('<secret:canary>');
  });

  it('catches it URL-encoded, as a form field and as a URI', () => {
    expect(redact(`/t?q=${encodeURIComponent(VALUE)}&x=1`)).toBe('/t?q=<secret:canary>&x=1');
    expect(redact(`q=${encodeURIComponent(VALUE).replace(/%20/g, '+')}`)).toBe('q=<secret:canary>');
    expect(redact(encodeURI(VALUE))).toBe('<secret:canary>');
  });

  it('catches it base64- and base64url-encoded, alone and embedded at each byte alignment', () => {
    expect(redact(Buffer.from(VALUE).toString('base64'))).toBe('<secret:canary>');
    expect(redact(Buffer.from(VALUE).toString('base64url'))).toBe('<secret:canary>');
    for (const prefix of ['', 'u', 'us', 'user:']) {
      for (const encoding of ['base64', 'base64url'] as const) {
        const encoded = Buffer.from(`${prefix}${VALUE}:tail`).toString(encoding);
        const redacted = redact(`Authorization: Basic ${encoded}`);
        expect(redacted).toContain('<secret:canary>');
        expect(leakedForms(VALUE, redacted)).toEqual([]);
      }
    }
    expect(embeddedBase64Forms('abc')).toEqual([]);
  });

  it('catches it JSON-escaped, escaped twice, with escaped slashes and as \\u escapes', () => {
    const tricky = 'pa"ss\\wörd/1';
    const own = createSecretRedactor([['tricky', tricky]]);
    const once = JSON.stringify(tricky);
    expect(own.redact(once)).toBe('"<secret:tricky>"');
    expect(own.redact(JSON.stringify(once))).toBe('"\\"<secret:tricky>\\""');
    expect(own.redact(once.replace(/\//g, '\\/'))).toBe('"<secret:tricky>"');
    expect(own.redact('"pa\\"ss\\\\w\\u00f6rd/1"')).toBe('"<secret:tricky>"');
    expect(own.redact('pa&quot;ss\\wörd/1')).toBe('<secret:tricky>');
  });

  it('catches a clipped start of at least 8 characters (or half a short value) followed by … or ...', () => {
    expect(clippedPrefixLength(VALUE)).toBe(8);
    expect(clippedPrefixLength('abcdef')).toBe(3);
    expect(redact(`shown: ${VALUE.slice(0, 12)}…`)).toBe('shown: <secret:canary>…');
    expect(redact(`shown: ${VALUE.slice(0, 8)}... more`)).toBe('shown: <secret:canary>... more');
    expect(redact(`${VALUE.slice(0, 7)}… more`)).toBe(`${VALUE.slice(0, 7)}… more`);
    expect(redact(`${VALUE.slice(0, 12)} and more`)).toBe(`${VALUE.slice(0, 12)} and more`);
  });

  it('catches it spaced, grouped in fours with spaces or dashes, and coloured by a terminal', () => {
    const card = '4111222233334444';
    const own = createSecretRedactor([['card', card]]);
    expect(own.redact('card 4111 2222 3333 4444 ok')).toBe('card <secret:card> ok');
    expect(own.redact('card 4111-2222-3333-4444')).toBe('card <secret:card>');
    expect(own.redact('4 1 1 1 2 2 2 2 3 3 3 3 4 4 4 4')).toBe('<secret:card>');
    expect(own.redact('\u001b[31m4111\u001b[39m222233334444')).toBe('\u001b[31m<secret:card>');
  });

  it('leaves no piece of a value before the mark of a text the engine clipped', () => {
    const clippedAt = (kept: number) => `${'x'.repeat(159 - kept)}${VALUE.slice(0, kept)}…`;
    for (let kept = 1; kept < VALUE.length; kept++) {
      const redacted = redactor.redact(clippedAt(kept));
      expect(redacted.endsWith('…')).toBe(true);
      expect(redacted.replace(/x+/, '').replace('<secret:canary>', '')).toBe('…');
    }
    expect(redactor.redact(`${'x'.repeat(158)}…`)).toBe(`${'x'.repeat(158)}…`);
  });

  it('prefers the longer of two secrets and never re-scans a replacement', () => {
    const own = createSecretRedactor([
      ['short', 'secret'],
      ['long', 'my-secret-value'],
      ['name', 'short'],
    ]);
    expect(own.redact('a my-secret-value and a secret')).toBe('a <secret:long> and a <secret:short>');
    expect(own.contains('x my-secret-value')).toBe(true);
    expect(own.contains('nothing here')).toBe(false);
  });

  it('leaves every text alone when no value is configured', () => {
    const none = createSecretRedactor([['empty', ''], ['missing', undefined]]);
    expect(none.redact(`plain ${VALUE}`)).toBe(`plain ${VALUE}`);
    expect(none.contains(VALUE)).toBe(false);
  });

  it('leaves nothing the leak detector recognises, for any value in any listed form (property)', () => {
    const characters = [...'abcdefghKLMNOPQRxyz0123456789 +/&"<>%.:_é'];
    const value = fc
      .array(fc.constantFrom(...characters), { minLength: 8, maxLength: 32 })
      .map((list) => list.join(''))
      .filter((text) => text.trim().length === text.length && /[a-z0-9]{2}/i.test(text));
    const renderings: Array<(secretValue: string, cut: number, prefix: string) => string> = [
      (secretValue) => `before ${secretValue} after`,
      (secretValue) => secretValue.toUpperCase(),
      (secretValue) => `/path?q=${encodeURIComponent(secretValue)}&n=1`,
      (secretValue) => `q=${encodeURIComponent(secretValue).replace(/%20/g, '+')}`,
      (secretValue) => JSON.stringify({ message: `Received: "${secretValue}"` }),
      (secretValue) => JSON.stringify(JSON.stringify({ text: secretValue })),
      (secretValue, _cut, prefix) => `Basic ${Buffer.from(`${prefix}${secretValue}!`).toString('base64')}`,
      (secretValue, _cut, prefix) => Buffer.from(`${prefix}${secretValue}`).toString('base64url'),
      (secretValue, cut) => `shown ${[...secretValue].slice(0, cut).join('')}… then`,
      (secretValue, cut) => `shown ${[...secretValue].slice(0, cut).join('')}...`,
      (secretValue) => `grouped ${(secretValue.match(/.{1,4}/gu) ?? []).join(' ')}.`,
      (secretValue) => `grouped ${(secretValue.match(/.{1,4}/gu) ?? []).join('-')}.`,
    ];
    fc.assert(
      fc.property(value, fc.nat(), fc.stringMatching(/^[a-z:]{0,5}$/), fc.constantFrom(...renderings.keys()), (secretValue, cutSeed, prefix, which) => {
        const length = [...secretValue].length;
        const shortest = shortestClippedStart(secretValue);
        const cut = shortest + (cutSeed % Math.max(1, length - shortest));
        const text = renderings[which]!(secretValue, cut, prefix);
        const redacted = createSecretRedactor([['s', secretValue]]).redact(text);
        expect(leakedForms(secretValue, redacted)).toEqual([]);
        expect(redacted).toContain('<secret:s>');
      }),
      { numRuns: 400 },
    );
  });

  it('leaves no form of any of several secrets that share letters and overlap in one text (property)', () => {
    const value = fc
      .array(fc.constantFrom(...'abcXYZ0129+/ é'), { minLength: 8, maxLength: 24 })
      .map((list) => list.join(''))
      .filter((text) => text.trim().length === text.length && /[a-z0-9]{2}/i.test(text));
    fc.assert(
      fc.property(fc.uniqueArray(value, { minLength: 2, maxLength: 4 }), fc.nat(), (values, seed) => {
        const own = createSecretRedactor(values.map((secretValue, index) => [`s${index}`, secretValue] as const));
        const pieces = values.flatMap((secretValue, index) => [
          secretValue,
          Buffer.from(`u${secretValue}`).toString('base64'),
          (secretValue.match(/.{1,4}/gu) ?? []).join((seed + index) % 2 === 0 ? ' ' : '-'),
        ]);
        // Glued without separators, so neighbouring secrets overlap or touch.
        const text = pieces.map((piece, index) => (index % 3 === seed % 3 ? piece : `${piece}|`)).join('');
        const redacted = own.redact(text);
        for (const secretValue of values) expect(leakedForms(secretValue, redacted)).toEqual([]);
        expect(own.contains(text)).toBe(true);
        expect(own.namesIn(text).length).toBeGreaterThan(0);
      }),
      { numRuns: 200 },
    );
  });

  it('has a leak detector that finds every listed form when nothing is redacted', () => {
    const forms = [
      VALUE,
      VALUE.toUpperCase(),
      encodeURIComponent(VALUE),
      Buffer.from(`us${VALUE}`).toString('base64'),
      Buffer.from(`u${VALUE}x`).toString('base64url'),
      JSON.stringify(JSON.stringify(VALUE)),
      `${VALUE.slice(0, 9)}…`,
      'Kx9c anar y/Va ult+ 81',
    ];
    for (const form of forms) expect(leakedForms(VALUE, `around ${form} here`)).not.toEqual([]);
  });
});

describe('the secret redactor over screen texts', () => {
  const redactText = (text: string, secrets?: ReadonlyMap<string, string>) => createSecretRedactor(secrets ?? []).redact(text);

  it('prefers the longest secret and never re-scans a replacement', () => {
    const secrets = new Map([
      ['short', 'secret'],
      ['long', 'my-secret-value'],
    ]);
    expect(redactText('a my-secret-value and a secret', secrets)).toBe('a <secret:long> and a <secret:short>');
    // A secret whose value is another secret's name must not touch the placeholder.
    const tricky = new Map([
      ['abc', 'zzzzzz'],
      ['other', 'abc'],
    ]);
    expect(redactText('zzzzzz abc', tricky)).toBe('<secret:abc> <secret:other>');
  });

  it('treats regular-expression characters in a secret literally', () => {
    expect(redactText('pay $1.00 (now)', new Map([['price', '$1.00 (now)']]))).toBe('pay <secret:price>');
    expect(redactText('pay $1x00', new Map([['price', '$1.00']]))).toBe('pay $1x00');
  });

  it('hides the start of a secret cut off by the engine clipping a long text', () => {
    const redact = (text: string) => redactText(text, new Map([['key', 'abcdef123456']]));
    expect(redact('the key is abcdef…')).toBe('the key is <secret:key>…');
    expect(redact('nothing secret here…')).toBe('nothing secret here…');
  });

  it('leaves text alone when no secrets are configured or values are empty', () => {
    expect(redactText('plain', undefined)).toBe('plain');
    expect(redactText('plain', new Map([['empty', '']]))).toBe('plain');
  });
});

describe('the secret redactor on long and Unicode values', () => {
  for (const [label, length] of [
    ['2 KiB', 2048],
    ['64 KiB', 65536],
  ] as const) {
    it(`redacts a ${label} value raw, in upper case, base64, embedded, JSON-quoted, grouped and clipped`, () => {
      const value = seededKey(length, length);
      const own = createSecretRedactor([['key', value]]);
      const renderings = [
        `-----BEGIN KEY-----\n${value}\n-----END KEY-----`,
        value.toUpperCase(),
        `Authorization: Basic ${Buffer.from(`user:${value}`).toString('base64')}`,
        JSON.stringify({ token: value }),
        (value.match(/.{1,64}/g) ?? []).join('\n'),
        `token=${value.slice(0, length / 2)}… (clipped)`,
      ];
      for (const text of renderings) {
        const redacted = own.redact(text);
        expect(redacted).toContain('<secret:key>');
        expect(leakedForms(value, redacted)).toEqual([]);
      }
      expect(own.redact(`${value} and ${value}`)).toBe('<secret:key> and <secret:key>');
      expect(own.contains('nothing of it here')).toBe(false);
    });
  }

  it('redacts a Unicode value the page hands back in another normalization form (NFC, NFD, NFKC)', () => {
    const composed = 'Jürgen-Größe-café-ﬁle-Å';
    expect(composed.normalize('NFD')).not.toBe(composed);
    expect(composed.normalize('NFKC')).not.toBe(composed);
    for (const given of [composed, composed.normalize('NFD')]) {
      const own = createSecretRedactor([['umlaut', given]]);
      for (const form of ['NFC', 'NFD', 'NFKC', 'NFKD'] as const) {
        const echoed = given.normalize(form);
        expect(own.redact(`echo: ${echoed}!`)).toBe('echo: <secret:umlaut>!');
        expect(own.redact(JSON.stringify({ echoed }))).toBe('{"echoed":"<secret:umlaut>"}');
        expect(own.redact(`q=${encodeURIComponent(echoed)}`)).toBe('q=<secret:umlaut>');
        expect(own.redact(`Basic ${Buffer.from(echoed).toString('base64')}`)).toBe('Basic <secret:umlaut>');
        expect(own.redact(`${[...echoed].slice(0, 12).join('')}…`)).toBe('<secret:umlaut>…');
      }
    }
  });

  it('drops a start of a value before a final … however short, since any text may have been clipped, and nothing else', () => {
    const own = createSecretRedactor([['key', 'gamma-ray-9']]);
    expect(own.redact('Loading…')).toBe('Loadin…');
    expect(own.redact('Loaded…')).toBe('Loaded…');
    expect(own.redact('Wait for the gam…')).toBe('Wait for the …');
    expect(own.redact('gam… is fine mid-text')).toBe('gam… is fine mid-text');
  });
});

describe('redacting page-sized trees', () => {
  it('redacts a tree of 200,000 siblings and one nested 5,000 deep, copying every node', () => {
    const redactor = createSecretRedactor([['token', 'tok-123456']]);
    for (const [tree, id] of [
      [wideTree(), 'i200000'],
      [deepTree(), 'deepest'],
    ] as const) {
      nodeById(tree, id).name = 'Token tok-123456';
      const redacted = redactDeep(tree, (text) => redactor.redact(text));
      expect(redacted === tree).toBe(false);
      expect(nodeById(redacted, id).name).toBe('Token <secret:token>');
      expect(nodeById(tree, id).name).toBe('Token tok-123456');
    }
  });
});
