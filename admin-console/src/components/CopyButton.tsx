import { useState } from 'react';

/** Copies `text` to the clipboard; says so, or says to copy by hand where the browser refuses. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = () => {
    navigator.clipboard
      .writeText(text)
      .then(() => setState('copied'))
      .catch(() => setState('failed'));
    setTimeout(() => setState('idle'), 2500);
  };
  return (
    <button type="button" onClick={copy}>
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Select and copy it' : label}
    </button>
  );
}
