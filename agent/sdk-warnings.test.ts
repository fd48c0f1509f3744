import { generateText } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { withSdkWarnings } from './sdk-warnings.js';

function warningModel(feature: string) {
  return new MockLanguageModelV3({
    provider: 'mock.chat',
    modelId: 'warns',
    doGenerate: async () => ({
      content: [{ type: 'text', text: 'ok' }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
      warnings: [{ type: 'unsupported', feature, details: `${feature} is ignored` }],
    }),
  });
}

const global = globalThis as { AI_SDK_LOG_WARNINGS?: unknown };

afterEach(() => {
  vi.restoreAllMocks();
  delete global.AI_SDK_LOG_WARNINGS;
});

describe('AI SDK warnings during our calls', () => {
  it('go to the calling step, not the console, and the global is put back afterwards', async () => {
    const printed = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const info = vi.spyOn(console, 'info').mockImplementation(() => undefined);
    const lines: string[] = [];
    await withSdkWarnings((line) => lines.push(line), () => generateText({ model: warningModel('topK'), prompt: 'hi' }));
    expect(lines).toEqual(['AI SDK warning from mock.chat (warns): topK is not supported: topK is ignored']);
    expect(printed).not.toHaveBeenCalled();
    expect(info).not.toHaveBeenCalled();
    expect(global.AI_SDK_LOG_WARNINGS).toBeUndefined();
  });

  it('reach each of two concurrent steps separately', async () => {
    const first: string[] = [];
    const second: string[] = [];
    await Promise.all([
      withSdkWarnings((line) => first.push(line), () => generateText({ model: warningModel('topK'), prompt: 'a' })),
      withSdkWarnings((line) => second.push(line), () => generateText({ model: warningModel('seed'), prompt: 'b' })),
    ]);
    expect(first).toEqual([expect.stringContaining('topK')]);
    expect(second).toEqual([expect.stringContaining('seed')]);
  });

  it("leave the user's own logger in charge of calls that are not ours, and restore it", async () => {
    const theirs = vi.fn();
    global.AI_SDK_LOG_WARNINGS = theirs;
    const ours: string[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const ourCall = withSdkWarnings(
      (line) => ours.push(line),
      async () => {
        await gate;
        await generateText({ model: warningModel('topK'), prompt: 'ours' });
      },
    );
    // The user's own call, made while ours is under way.
    await generateText({ model: warningModel('seed'), prompt: 'theirs' });
    release();
    await ourCall;
    expect(ours).toHaveLength(1);
    expect(theirs).toHaveBeenCalledTimes(1);
    expect(global.AI_SDK_LOG_WARNINGS).toBe(theirs);
  });
});
