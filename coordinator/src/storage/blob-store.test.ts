import { describe, expect, it } from 'vitest';
import { InvalidBlobKeyError, assertValidBlobKey, assertValidBlobPrefix } from './blob-store.ts';

describe('assertValidBlobKey', () => {
  it.each(['jobs/0b6f/source', 'jobs/0b6f/transcript.srt', 'a', 'A-z_0.9/x-y'])('accepts %s', (key) => {
    expect(() => assertValidBlobKey(key)).not.toThrow();
  });

  it.each([
    ['', 'non-empty'],
    ['/jobs/x', 'start with'],
    ['jobs/../etc/passwd', '..'],
    ['jobs/a..b', '..'],
    ['jobs//x', 'empty'],
    ['jobs/./x', 'empty or "."'],
    ['jobs/x/', 'end with'],
    ['jobs/x y', 'only contain'],
    ['jobs/x#meta.json', 'only contain'],
    ['jobs\\x', 'only contain'],
    ['jobs/é', 'only contain'],
    ['x'.repeat(1025), 'longer'],
  ])('refuses %j', (key, why) => {
    expect(() => assertValidBlobKey(key)).toThrow(InvalidBlobKeyError);
    expect(() => assertValidBlobKey(key)).toThrow(why);
  });
});

describe('assertValidBlobPrefix', () => {
  it('accepts a trailing slash and partial names', () => {
    expect(() => assertValidBlobPrefix('jobs/0b6f/')).not.toThrow();
    expect(() => assertValidBlobPrefix('jobs/0b')).not.toThrow();
  });

  it.each(['', '/', 'jobs//', '../x', '/jobs/'])('refuses %j (an empty prefix would delete everything)', (p) => {
    expect(() => assertValidBlobPrefix(p)).toThrow(InvalidBlobKeyError);
  });
});
