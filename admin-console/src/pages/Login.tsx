import { useState } from 'react';
import { logIn } from '../api.ts';

/** The log-in page: an operator token (`cro_…`) traded for an httpOnly session cookie. */
export function Login({ onLoggedIn }: { onLoggedIn: (name: string) => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <main className="login">
      <form
        className="login-box"
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setError(null);
          try {
            onLoggedIn(await logIn(token.trim()));
          } catch (err) {
            setError((err as Error).message);
          } finally {
            setBusy(false);
          }
        }}
      >
        <h1>
          cutroom <span className="muted">operators</span>
        </h1>
        <label className="field">
          Operator token
          <input
            type="password"
            name="token"
            autoComplete="current-password"
            placeholder="cro_…"
            value={token}
            onChange={(e) => setToken(e.target.value)}
            required
          />
        </label>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="primary" disabled={busy || !token.trim()}>
          {busy ? 'Logging in…' : 'Log in'}
        </button>
        <p className="hint">
          The first operator's token is <code>ADMIN_TOKEN</code> (the embedded default prints where it keeps a generated one). Operators add others on the
          Operators page.
        </p>
      </form>
    </main>
  );
}
