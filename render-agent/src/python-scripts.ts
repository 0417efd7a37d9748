import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The Python children live beside src/: render-agent/python/. */
const PYTHON_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'python');

export const TRANSCRIBE_SCRIPT = path.join(PYTHON_DIR, 'transcribe.py');
export const CHECK_MODEL_SCRIPT = path.join(PYTHON_DIR, 'check_model.py');

/**
 * Environment for every Python child. HF_HUB_OFFLINE=1 unless downloads are allowed: a
 * missing model then fails in a second instead of hanging on an unreachable hub.
 */
export function pythonEnv(allowDownload: boolean): Record<string, string> {
  return { HF_HUB_OFFLINE: allowDownload ? '0' : '1', PYTHONUNBUFFERED: '1' };
}
