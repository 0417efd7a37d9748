import type { AgentConfig } from '../config.ts';

export interface WhisperRuntime {
  device: 'cpu' | 'cuda';
  computeType: string;
}

/**
 * Turns the configured `auto`s into what the child will be told: cuda only when detection saw
 * a CUDA device; int8 on CPU (fast, small loss), float16 on GPU (native).
 */
export function resolveWhisperRuntime(whisper: AgentConfig['whisper'], isCudaAvailable: boolean): WhisperRuntime {
  const device = whisper.device === 'auto' ? (isCudaAvailable ? 'cuda' : 'cpu') : whisper.device;
  const computeType = whisper.computeType === 'auto' ? (device === 'cuda' ? 'float16' : 'int8') : whisper.computeType;
  return { device, computeType };
}
