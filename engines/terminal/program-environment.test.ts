import { describe, expect, it } from 'vitest';
import { programEnvironment } from './terminal-engine.js';

describe('programEnvironment', () => {
  it('hands the program the host environment without the variables that say it runs on CI', () => {
    expect(programEnvironment({ PATH: '/usr/bin', CI: 'true', CONTINUOUS_INTEGRATION: '1', HOME: '/root', UNSET: undefined })).toEqual({ PATH: '/usr/bin', HOME: '/root' });
  });

  it('leaves the environment to the pseudo-terminal when the host gives none', () => {
    expect(programEnvironment(undefined)).toBeUndefined();
  });
});
