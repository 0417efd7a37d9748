import { type ReactNode, useState } from 'react';
import { Modal } from './Modal.tsx';

/**
 * A button whose action is confirmed first in a dialog, optionally with a note the action records
 * (`note`: its label; `noteMin`: the fewest characters it needs).
 */
export function ConfirmButton(props: {
  label: string;
  title: string;
  children?: ReactNode;
  onConfirm: (note: string) => unknown;
  danger?: boolean;
  disabled?: boolean;
  note?: string;
  noteMin?: number;
  confirmLabel?: string;
}) {
  const [open, setOpen] = useState(false);
  const [note, setNote] = useState('');
  const short = props.note !== undefined && note.trim().length < (props.noteMin ?? 0);
  const close = () => {
    setOpen(false);
    setNote('');
  };
  return (
    <>
      <button type="button" className={props.danger ? 'danger' : ''} disabled={props.disabled} onClick={() => setOpen(true)}>
        {props.label}
      </button>
      {open && (
        <Modal title={props.title} onClose={close}>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              if (short) return;
              props.onConfirm(note.trim());
              close();
            }}
          >
            {props.children && <div className="modal-body">{props.children}</div>}
            {props.note !== undefined && (
              <label className="field">
                {props.note}
                <textarea value={note} onChange={(e) => setNote(e.target.value)} rows={3} maxLength={500} />
              </label>
            )}
            <div className="actions">
              <button type="submit" className={props.danger ? 'danger primary' : 'primary'} disabled={short}>
                {props.confirmLabel ?? props.label}
              </button>
              <button type="button" onClick={close}>
                Cancel
              </button>
            </div>
          </form>
        </Modal>
      )}
    </>
  );
}
