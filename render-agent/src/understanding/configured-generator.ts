import type { LlmConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import { generatorFromConfig, type TextGenerator } from './text-generator.ts';

/**
 * The text model for one attempt, from the agent's LLM_* settings. A generator that is configured
 * but cannot be opened (a damaged model file, a missing binary) is logged as an error and the job
 * goes on with extractive texts: the text model improves the wording, it is never what makes a
 * result correct, so a paid job is not failed over it. The note tells the caller.
 */
export async function configuredGenerator(llm: LlmConfig, logger: Logger): Promise<{ generator: TextGenerator | null; note: string | null }> {
  try {
    const generator = await generatorFromConfig(llm);
    if (!generator) logger.info('no text model is configured or installed: extractive texts only');
    return { generator, note: null };
  } catch (err) {
    logger.error({ err }, 'the configured text model could not be opened: extractive texts only');
    return { generator: null, note: 'the text model could not be started on this agent: every text is extractive' };
  }
}
