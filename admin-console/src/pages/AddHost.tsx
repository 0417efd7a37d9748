import { useState } from 'react';
import { api, type Minted } from '../api.ts';
import { CopyButton } from '../components/CopyButton.tsx';
import { Modal } from '../components/Modal.tsx';
import { Time } from '../components/Time.tsx';
import { useAction } from '../hooks.ts';

/** Mints a one-use enrollment token and shows the one command that adds the host. */
export function AddHost({ onClose }: { onClose: () => void }) {
  const [name, setName] = useState('');
  const [tags, setTags] = useState('');
  const [minted, setMinted] = useState<Minted | null>(null);
  const { busy, run } = useAction();
  return (
    <Modal title="Add a host" onClose={onClose}>
      {!minted ? (
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            const input = { ...(name.trim() ? { agent_id: name.trim() } : {}), tags: tags.split(/[\s,]+/).filter(Boolean) };
            const m = await run(() => api.enrollment.mint.mutate(input));
            if (m) setMinted(m);
          }}
        >
          <p>A one-use token lets one new host join the farm. Run the command it gives on the host, from a checkout of this repository.</p>
          <label className="field">
            Agent name (optional: the host's name by default)
            <input value={name} onChange={(e) => setName(e.target.value)} placeholder="gpu-box-3" pattern="[A-Za-z0-9][A-Za-z0-9._\-]*" maxLength={128} />
          </label>
          <label className="field">
            Tags (optional, separated by spaces)
            <input value={tags} onChange={(e) => setTags(e.target.value)} placeholder="gpu nvenc" />
          </label>
          <div className="actions">
            <button type="submit" className="primary" disabled={busy}>
              Create enrollment token
            </button>
            <button type="button" onClick={onClose}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <div>
          <p>
            Run this on the new host (the token works once, until <Time at={minted.expires_at} />; it is not shown again):
          </p>
          <pre className="command" data-testid="enroll-command">
            {minted.command}
          </pre>
          <div className="actions">
            <CopyButton text={minted.command} label="Copy command" />
            <button type="button" className="primary" onClick={onClose}>
              Done
            </button>
          </div>
        </div>
      )}
    </Modal>
  );
}
