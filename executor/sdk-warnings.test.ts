import { generateText } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { modelLabel, reportWarnings, withoutSdkPrinting } from './sdk-warnings.js';

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

describe('AI SDK warnings of our calls', () => {
  it('are not printed, come back on the result as lines for the debug output, and the global is put back', async () => {
    const printed = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const info = vi.spyOn(console, 'info').mockImplementation(() => undefined);
    const model = warningModel('topK');
    const result = await withoutSdkPrinting(() => generateText({ model, prompt: 'hi' }));
    const lines: string[] = [];
    reportWarnings((line) => lines.push(line), result.warnings, modelLabel(model));
    expect(lines).toEqual(['AI SDK warning from mock.chat (warns): topK is not supported: topK is ignored']);
    expect(printed).not.toHaveBeenCalled();
    expect(info).not.toHaveBeenCalled();
    expect(global.AI_SDK_LOG_WARNINGS).toBeUndefined();
  });

  it("still reach the user's own logger, which is restored after overlapping calls", async () => {
    const theirs = vi.fn();
    global.AI_SDK_LOG_WARNINGS = theirs;
    await Promise.all([
      withoutSdkPrinting(() => generateText({ model: warningModel('topK'), prompt: 'a' })),
      withoutSdkPrinting(() => generateText({ model: warningModel('seed'), prompt: 'b' })),
    ]);
    expect(theirs).toHaveBeenCalledTimes(2);
    expect(global.AI_SDK_LOG_WARNINGS).toBe(theirs);
  });

  it('leave a user who turned warnings off with them off', async () => {
    global.AI_SDK_LOG_WARNINGS = false;
    await withoutSdkPrinting(() => generateText({ model: warningModel('topK'), prompt: 'a' }));
    expect(global.AI_SDK_LOG_WARNINGS).toBe(false);
  });
});
